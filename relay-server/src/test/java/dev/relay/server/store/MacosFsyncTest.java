package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MacosFsyncTest {
  @TempDir Path dir;

  @Test
  void the_writer_asks_for_full_fsync_by_default_and_for_plain_fsync_when_told() throws Exception {
    assertThat(fullfsyncPragmas(MacosFsync.FULL, "full.db")).isEqualTo("1 1");
    assertThat(fullfsyncPragmas(MacosFsync.PLAIN, "plain.db")).isEqualTo("0 0");
  }

  private String fullfsyncPragmas(MacosFsync mode, String file) throws Exception {
    try (Connection c = Sqlite.openWriter(dir.resolve(file), 0, mode);
        Statement s = c.createStatement()) {
      return Sqlite.queryString(s, "PRAGMA fullfsync")
          + " "
          + Sqlite.queryString(s, "PRAGMA checkpoint_fullfsync");
    }
  }
}
