package dev.relay.server.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks an existing database file on a read-only connection before anything may write to it:
 * integrity ({@code PRAGMA quick_check}), that it is a Relay file, and that its schema is not newer
 * than this build. A refused file is left byte for byte as it was.
 */
final class StartupCheck {
  /** quick_check stops after this many problems; enough to name the damage in the message. */
  static final int QUICK_CHECK_ERRORS_MAX = 10;

  private StartupCheck() {}

  /** Answers the file's schema version, 0 when there is no file yet. */
  static int run(Path file) {
    if (!Files.exists(file)) {
      return 0;
    }
    List<String> problems = new ArrayList<>();
    int version;
    int applicationId;
    long tables;
    try (Connection c = Sqlite.openReadOnly(file);
        Statement s = c.createStatement()) {
      try (ResultSet r = s.executeQuery("PRAGMA quick_check(" + QUICK_CHECK_ERRORS_MAX + ")")) {
        while (r.next()) {
          problems.add(r.getString(1));
        }
      }
      if (!problems.equals(List.of("ok"))) {
        throw corrupt(file, "PRAGMA quick_check reported: " + String.join("; ", problems));
      }
      version = (int) Sqlite.queryLong(s, "PRAGMA user_version");
      applicationId = (int) Sqlite.queryLong(s, "PRAGMA application_id");
      tables = Sqlite.queryLong(s, "SELECT COUNT(*) FROM sqlite_schema");
    } catch (SQLException e) {
      throw corrupt(file, "SQLite could not read it: " + e.getMessage());
    }
    if (applicationId != Schema.APPLICATION_ID && (version != 0 || tables != 0)) {
      throw new StoreOpenException(
          file
              + " is not a Relay database (application_id "
              + applicationId
              + ", expected "
              + Schema.APPLICATION_ID
              + "); Relay refuses to write to it");
    }
    Schema.checkVersion(file, version);
    return version;
  }

  private static StoreOpenException corrupt(Path file, String what) {
    return new StoreOpenException(
        file
            + " failed the startup integrity check and Relay refuses to start; nothing was"
            + " written to it. "
            + what
            + ". Restore the file from a backup (made with the backup command) or move it aside.");
  }
}
