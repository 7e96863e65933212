package dev.relay.protocol;

import java.util.List;

/**
 * The answer to STATS: counts for up to {@link ProtocolLimits#STATS_QUEUES_MAX} queues and up to
 * {@link ProtocolLimits#STATS_COUNTERS_MAX} named server counters.
 */
public record StatsResult(List<QueueStats> queues, List<Counter> counters) implements Response {
  public StatsResult {
    queues = Checks.list("queues", queues, 0, ProtocolLimits.STATS_QUEUES_MAX);
    counters = Checks.list("counters", counters, 0, ProtocolLimits.STATS_COUNTERS_MAX);
  }

  @Override
  public Opcode opcode() {
    return Opcode.STATS_RESULT;
  }
}
