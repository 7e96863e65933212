package dev.relay.server;

import dev.relay.protocol.Counter;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.QueueStats;
import dev.relay.protocol.StatsResult;
import dev.relay.server.store.StoreCounters;
import dev.relay.server.store.StoreStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Builds STATS_RESULT: per-queue job counts from the store and the snake_case counters listed in
 * docs/operations.md.
 */
final class StatsReport {
  private final ServerContext server;

  StatsReport(ServerContext server) {
    this.server = server;
  }

  StatsResult result(StoreStats stats) {
    List<QueueStats> queues =
        stats.queues().stream()
            .sorted(Comparator.comparing(q -> q.queue()))
            .limit(ProtocolLimits.STATS_QUEUES_MAX)
            .map(
                q ->
                    new QueueStats(
                        q.queue(),
                        q.paused(),
                        q.ready(),
                        q.scheduled(),
                        q.leased(),
                        q.done(),
                        q.dead(),
                        q.oldestReadyAgeMillis()))
            .toList();
    List<Counter> counters = new ArrayList<>();
    counters.add(new Counter("queues", stats.queues().size()));
    StoreCounters store = server.store().counters();
    counters.add(new Counter("enqueued", store.enqueued()));
    counters.add(new Counter("leased", store.leased()));
    counters.add(new Counter("acked", store.acked()));
    counters.add(new Counter("nacked", store.nacked()));
    counters.add(new Counter("released", store.released()));
    counters.add(new Counter("renewed", store.renewed()));
    counters.add(new Counter("expired", store.expired()));
    counters.add(new Counter("dead", store.dead()));
    counters.add(new Counter("corrupt", store.corrupt()));
    counters.add(new Counter("commits", stats.commits()));
    counters.add(new Counter("committed_commands", stats.committedCommands()));
    counters.add(
        new Counter(
            "mean_batch_size_x1000",
            stats.commits() == 0 ? 0 : stats.committedCommands() * 1000 / stats.commits()));
    counters.add(new Counter("writer_queue_depth", stats.writerQueueDepth()));
    store
        .writerCpuNanos()
        .ifPresent(nanos -> counters.add(new Counter("writer_cpu_micros", nanos / 1_000)));
    counters.add(new Counter("database_bytes", stats.databaseBytes()));
    ServerCounters net = server.counters();
    counters.add(new Counter("connections", net.connections()));
    counters.add(new Counter("connections_accepted", net.connectionsAccepted()));
    counters.add(new Counter("parked_polls", server.longPolls().parked()));
    counters.add(new Counter("lease_store_calls", net.leaseStoreCalls()));
    for (ErrorCode code : ErrorCode.values()) {
      if (!code.clientSide()) {
        counters.add(new Counter(rejectedName(code), net.rejected(code)));
      }
    }
    return new StatsResult(queues, counters);
  }

  /** {@code rejected.queue_full} and so on: one counter per error code the server sends. */
  static String rejectedName(ErrorCode code) {
    return "rejected." + code.name().toLowerCase(Locale.ROOT);
  }
}
