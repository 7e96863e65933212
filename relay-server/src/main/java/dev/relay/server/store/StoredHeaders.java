package dev.relay.server.store;

import dev.relay.protocol.Header;
import dev.relay.protocol.Headers;
import java.util.List;

/**
 * The {@code headers} column: the protocol's own encoding of a job's header list, or {@code NULL}
 * when it has none, so an untyped job without headers costs nothing and rows from before schema
 * version 2 read back with no headers.
 */
public final class StoredHeaders {
  private StoredHeaders() {}

  public static byte[] encode(List<Header> headers) {
    return headers.isEmpty() ? null : Headers.toBytes(headers);
  }

  public static List<Header> decode(byte[] storedOrNull) {
    return storedOrNull == null ? List.of() : Headers.fromBytes(storedOrNull);
  }
}
