package dev.relay.server.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;

/**
 * Opens SQLite connections with every pragma set explicitly, so behaviour never depends on the
 * driver's or the library's compile-time defaults.
 */
final class Sqlite {
  private static final Logger log = LoggerFactory.getLogger(Sqlite.class);

  /** Wait this long for a lock held by a checkpoint or a reader before failing with BUSY. */
  static final int BUSY_TIMEOUT_MILLIS = 5_000;

  /** Page cache of the write connection: 16 MiB (negative cache_size means KiB). */
  static final int WRITER_CACHE_KIB = 16 * 1024;

  /** Page cache of each read-only connection: 4 MiB. */
  static final int READER_CACHE_KIB = 4 * 1024;

  /** Checkpoint the WAL into the main file every 1000 pages (SQLite's default, made explicit). */
  static final int WAL_AUTOCHECKPOINT_PAGES = 1000;

  /** Truncate the WAL file back to this size after a checkpoint, so it cannot stay huge. */
  static final long JOURNAL_SIZE_LIMIT_BYTES = 64L * 1024 * 1024;

  private Sqlite() {}

  /**
   * The single write connection. auto_vacuum must be set before the first table exists, so it is
   * the first pragma; journal_mode is read back because SQLite answers with the mode it really
   * chose (a file system without shared memory would silently stay in a rollback journal). {@code
   * dbPagesMax} is {@link StoreConfig#dbPagesMax()}: 0 sets SQLite's own largest count. The
   * fullfsync pragmas are set on every system for {@code macosFsync}: SQLite acts on them only
   * where F_FULLFSYNC exists (macOS), and elsewhere they read back what was chosen.
   */
  static Connection openWriter(Path file, long dbPagesMax, MacosFsync macosFsync)
      throws SQLException {
    Connection c = config().createConnection(url(file));
    try (Statement s = c.createStatement()) {
      s.executeUpdate("PRAGMA auto_vacuum = INCREMENTAL");
      String mode = queryString(s, "PRAGMA journal_mode = WAL");
      if (!"wal".equalsIgnoreCase(mode)) {
        throw new SQLException("journal_mode is " + mode + " after asking for wal on " + file);
      }
      s.executeUpdate("PRAGMA synchronous = FULL");
      String fullfsync = macosFsync == MacosFsync.FULL ? "ON" : "OFF";
      s.executeUpdate("PRAGMA fullfsync = " + fullfsync);
      s.executeUpdate("PRAGMA checkpoint_fullfsync = " + fullfsync);
      s.executeUpdate("PRAGMA foreign_keys = OFF");
      s.executeUpdate("PRAGMA busy_timeout = " + BUSY_TIMEOUT_MILLIS);
      s.executeUpdate("PRAGMA cache_size = -" + WRITER_CACHE_KIB);
      s.executeUpdate("PRAGMA temp_store = MEMORY");
      s.executeUpdate("PRAGMA wal_autocheckpoint = " + WAL_AUTOCHECKPOINT_PAGES);
      queryString(s, "PRAGMA journal_size_limit = " + JOURNAL_SIZE_LIMIT_BYTES);
      capPages(s, file, dbPagesMax);
      String synchronous = queryString(s, "PRAGMA synchronous");
      if (!"2".equals(synchronous)) {
        throw new SQLException("synchronous is " + synchronous + " after asking for FULL (2)");
      }
      return c;
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * SQLite never lowers max_page_count below the file's current size: it answers with that size
   * instead. The store still opens (reads work, and writes that fit in free pages), but the
   * operator who asked for a smaller cap is told.
   */
  private static void capPages(Statement s, Path file, long dbPagesMax) throws SQLException {
    long requested = dbPagesMax == 0 ? StoreConfig.DB_PAGES_MAX_MAX : dbPagesMax;
    long effective = queryLong(s, "PRAGMA max_page_count = " + requested);
    if (effective > requested) {
      log.warn(
          "{} already holds {} pages, more than dbPagesMax {}: writes that need a new page fail"
              + " with STORE_UNAVAILABLE until the cap is raised",
          file,
          effective,
          requested);
    }
  }

  /**
   * A read-only connection: opened with SQLITE_OPEN_READONLY and query_only, so neither a bug nor a
   * pragma can write through it.
   */
  static Connection openReadOnly(Path file) throws SQLException {
    SQLiteConfig config = config();
    config.setReadOnly(true);
    Connection c = config.createConnection(url(file));
    try (Statement s = c.createStatement()) {
      s.executeUpdate("PRAGMA query_only = ON");
      s.executeUpdate("PRAGMA busy_timeout = " + BUSY_TIMEOUT_MILLIS);
      s.executeUpdate("PRAGMA cache_size = -" + READER_CACHE_KIB);
      s.executeUpdate("PRAGMA temp_store = MEMORY");
      return c;
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * The driver settings of every connection. The store never asks for generated keys (inserts use
   * {@code RETURNING id}), and with that support on, sqlite-jdbc matches every executed update's
   * SQL against an INSERT regex: the largest share of the writer's Java CPU in a JFR profile of a
   * lease+ACK drain.
   */
  private static SQLiteConfig config() {
    SQLiteConfig config = new SQLiteConfig();
    config.setGetGeneratedKeys(false);
    return config;
  }

  static String queryString(Statement s, String sql) throws SQLException {
    try (ResultSet r = s.executeQuery(sql)) {
      return r.next() ? r.getString(1) : null;
    }
  }

  static long queryLong(Statement s, String sql) throws SQLException {
    try (ResultSet r = s.executeQuery(sql)) {
      Invariants.check(r.next(), "no row from %s", sql);
      return r.getLong(1);
    }
  }

  private static String url(Path file) {
    return "jdbc:sqlite:" + file.toAbsolutePath();
  }
}
