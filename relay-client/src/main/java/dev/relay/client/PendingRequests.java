package dev.relay.client;

import dev.relay.protocol.DurationText;
import dev.relay.protocol.Opcode;
import dev.relay.protocol.Response;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The requests of one connection that await a response, by request id. Confined to the connection's
 * event loop, so it needs no locks; its size is bounded by the client's pending-table permits,
 * taken before a request gets here.
 *
 * <p>Each entry carries its own timeout, scheduled on the event loop. Once the connection is gone,
 * {@link #failAll} fails every entry at once and refuses new ones, so no request can be left
 * waiting on a dead connection.
 */
final class PendingRequests {
  private record Entry(
      Opcode opcode, CompletableFuture<Response> future, ScheduledFuture<?> timer) {}

  private final EventExecutor loop;
  private final Map<Integer, Entry> entries = new HashMap<>();
  private int lastId;
  private RelayException closedWith;

  PendingRequests(EventExecutor loop) {
    this.loop = loop;
  }

  /**
   * Registers a request and returns its id, or fails {@code future} and returns empty when the
   * connection is already gone.
   */
  OptionalInt register(Opcode opcode, CompletableFuture<Response> future, Duration timeout) {
    assert loop.inEventLoop();
    if (closedWith != null) {
      future.completeExceptionally(closedWith);
      return OptionalInt.empty();
    }
    int id = nextId();
    ScheduledFuture<?> timer =
        loop.schedule(() -> timeOut(id, timeout), timeout.toNanos(), TimeUnit.NANOSECONDS);
    entries.put(id, new Entry(opcode, future, timer));
    return OptionalInt.of(id);
  }

  /** Completes request {@code id}; false when no such request waits (timed out, or unknown). */
  boolean complete(int id, Response response) {
    Entry entry = entries.remove(id);
    if (entry == null) {
      return false;
    }
    entry.timer().cancel(false);
    entry.future().complete(response);
    return true;
  }

  /** Fails request {@code id} if it still waits. */
  void fail(int id, RelayException error) {
    Entry entry = entries.remove(id);
    if (entry != null) {
      entry.timer().cancel(false);
      entry.future().completeExceptionally(error);
    }
  }

  /** Fails every waiting request with {@code error} and refuses new ones from now on. */
  void failAll(RelayException error) {
    if (closedWith == null) {
      closedWith = error;
    }
    List<Entry> all = new ArrayList<>(entries.values());
    entries.clear();
    for (Entry entry : all) {
      entry.timer().cancel(false);
      entry.future().completeExceptionally(error);
    }
  }

  int size() {
    return entries.size();
  }

  private void timeOut(int id, Duration timeout) {
    Entry entry = entries.remove(id);
    if (entry != null) {
      entry
          .future()
          .completeExceptionally(
              new RelayTimeoutException(
                  "no response to "
                      + entry.opcode()
                      + " (request "
                      + Integer.toUnsignedString(id)
                      + ") within "
                      + DurationText.format(timeout)));
    }
  }

  /** The next id, skipping 0 (which the server uses for connection-level errors) and live ids. */
  private int nextId() {
    do {
      lastId++;
    } while (lastId == 0 || entries.containsKey(lastId));
    return lastId;
  }
}
