package dev.relay.server.store;

import java.sql.Connection;
import java.sql.SQLException;

/** Work for a read-only connection; it must not try to write (the connection would refuse). */
@FunctionalInterface
interface ReadQuery<T> {
  T run(Connection connection) throws SQLException;
}
