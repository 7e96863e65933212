package dev.relay.server.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * A child process for {@link OpenElsewhereCheckTest}: opens the database named by its argument on a
 * read-only connection, as any SQLite tool would, prints {@code open}, and holds it until its
 * standard input closes.
 */
public final class HoldOpen {
  private HoldOpen() {}

  public static void main(String[] args) throws Exception {
    try (Connection c = Sqlite.openReadOnly(Path.of(args[0]));
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT COUNT(*) FROM jobs")) {
      r.next();
      System.out.println("open");
      System.out.flush();
      while (System.in.read() >= 0) {
        // Hold the connection until the parent closes our stdin (or dies).
      }
    }
  }
}
