package dev.relay.server.store.postgres;

import dev.relay.server.store.AvailabilityListener;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hears every node's commits: one connection that LISTENs on {@link PostgresWriter#CHANNEL} and
 * passes each NOTIFY to the availability listener, so a long-poll parked on this node wakes when a
 * job becomes available through any node. Every time it has begun to LISTEN, at start and after a
 * lost connection, it tells the listener about every queue with ready jobs: a NOTIFY sent before
 * the LISTEN (another node's commit while this one was starting, or while the connection was down)
 * was never heard. This node's own NOTIFYs are skipped: its writer has told the listener already.
 */
final class Notifications implements AutoCloseable {
  static final String THREAD_NAME = "relay-pg-listener";

  /** How long one wait for notifications lasts, so close() is seen within this time. */
  static final int POLL_MILLIS = 500;

  /** Pause between reconnection attempts while the database is away. */
  static final long RECONNECT_MILLIS = 1000;

  private static final Logger log = LoggerFactory.getLogger(Notifications.class);

  private final Connections connections;
  private final PostgresStore store;
  private final Thread thread;
  private volatile AvailabilityListener listener = queues -> {};
  private volatile boolean closed;

  Notifications(Connections connections, PostgresStore store) {
    this.connections = connections;
    this.store = store;
    this.thread = new Thread(this::loop, THREAD_NAME);
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  void setListener(AvailabilityListener listener) {
    this.listener = listener;
  }

  private void loop() {
    while (!closed) {
      try (Connection c = connections.open()) {
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN " + PostgresWriter.CHANNEL);
        }
        store.announceReadyQueues(listener);
        PGConnection pg = c.unwrap(PGConnection.class);
        while (!closed) {
          PGNotification[] batch = pg.getNotifications(POLL_MILLIS);
          if (batch != null && batch.length > 0) {
            deliver(batch);
          }
        }
      } catch (SQLException e) {
        if (!closed) {
          log.warn("lost the PostgreSQL notification connection, reconnecting: {}", e.toString());
          sleepBeforeReconnect();
        }
      }
    }
  }

  private void deliver(PGNotification[] batch) {
    Set<String> available = new HashSet<>();
    Map<String, Long> scheduled = new HashMap<>();
    for (PGNotification n : batch) {
      if (n.getPID() == store.writerBackendPid()) {
        continue; // this node's own commit: its writer told the listener already
      }
      String payload = n.getParameter();
      int space = payload.indexOf(' ');
      if (space < 1) {
        continue; // not a Relay node's NOTIFY
      }
      long at;
      try {
        at = Long.parseLong(payload.substring(0, space));
      } catch (NumberFormatException e) {
        continue; // not a Relay node's NOTIFY
      }
      String queue = payload.substring(space + 1);
      if (at == 0) {
        available.add(queue);
      } else {
        scheduled.merge(queue, at, Math::min);
      }
    }
    listener.tell(available, scheduled);
  }

  private void sleepBeforeReconnect() {
    try {
      Thread.sleep(RECONNECT_MILLIS);
    } catch (InterruptedException e) {
      closed = true;
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      thread.join(POLL_MILLIS * 4L + RECONNECT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
