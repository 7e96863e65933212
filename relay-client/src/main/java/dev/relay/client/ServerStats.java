package dev.relay.client;

import dev.relay.protocol.Counter;
import dev.relay.protocol.StatsResult;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The answer to {@link RelayClient#stats()}: the job counts of each queue and the server's named
 * counters (the STATS_RESULT section of docs/protocol.md lists them).
 */
public final class ServerStats {
  private final List<QueueStatus> queues;
  private final Map<String, Long> counters;

  ServerStats(StatsResult result) {
    this.queues = result.queues().stream().map(QueueStatus::new).toList();
    Map<String, Long> map = new LinkedHashMap<>();
    for (Counter c : result.counters()) {
      map.put(c.name(), c.value());
    }
    this.counters = Collections.unmodifiableMap(map);
  }

  /** Every queue the server reported, in its order. */
  public List<QueueStatus> queues() {
    return queues;
  }

  /** The queue named {@code name}, if the server reported it. */
  public Optional<QueueStatus> queue(String name) {
    return queues.stream().filter(q -> q.queue().equals(name)).findFirst();
  }

  /** The server's counters by name, in the order it sent them (snake_case, since start). */
  public Map<String, Long> counters() {
    return counters;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServerStats other
        && queues.equals(other.queues)
        && counters.equals(other.counters);
  }

  @Override
  public int hashCode() {
    return queues.hashCode() * 31 + counters.hashCode();
  }

  @Override
  public String toString() {
    return "ServerStats[queues=" + queues.size() + ", counters=" + counters + "]";
  }
}
