package dev.relay.server.store;

import java.sql.SQLException;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** Sorts SQLite failures into "the environment failed" versus "the file is damaged" versus bugs. */
final class SqliteErrors {
  private static final int SQLITE_READONLY = SQLiteErrorCode.SQLITE_READONLY.code;
  private static final int SQLITE_IOERR = SQLiteErrorCode.SQLITE_IOERR.code;
  private static final int SQLITE_CORRUPT = SQLiteErrorCode.SQLITE_CORRUPT.code;
  private static final int SQLITE_FULL = SQLiteErrorCode.SQLITE_FULL.code;
  private static final int SQLITE_CANTOPEN = SQLiteErrorCode.SQLITE_CANTOPEN.code;
  private static final int SQLITE_NOTADB = SQLiteErrorCode.SQLITE_NOTADB.code;
  private static final int SQLITE_BUSY = SQLiteErrorCode.SQLITE_BUSY.code;

  private SqliteErrors() {}

  /** The primary result code (extended codes carry it in their low byte), or -1 if unknown. */
  static int primaryCode(SQLException e) {
    if (e instanceof SQLiteException s && s.getResultCode() != null) {
      return s.getResultCode().code & 0xff;
    }
    return -1;
  }

  /**
   * Disk full, I/O error, read-only file, cannot open, or busy: the batch is lost but the cause may
   * go away, so the caller gets a retryable STORE_UNAVAILABLE and the writer keeps running.
   */
  static boolean isEnvironmental(SQLException e) {
    int code = primaryCode(e);
    return code == SQLITE_FULL
        || code == SQLITE_IOERR
        || code == SQLITE_READONLY
        || code == SQLITE_CANTOPEN
        || code == SQLITE_BUSY;
  }

  /** The file itself is damaged: writing on must stop. */
  static boolean isCorruption(SQLException e) {
    int code = primaryCode(e);
    return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
  }
}
