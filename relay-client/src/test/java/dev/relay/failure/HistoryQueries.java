package dev.relay.failure;

import dev.relay.client.JobDetails;
import dev.relay.client.ServerStats;
import dev.relay.failure.HistoryEvent.EnqueueAcked;
import dev.relay.failure.HistoryEvent.LeaseGranted;
import dev.relay.failure.HistoryEvent.Settled;
import dev.relay.failure.HistoryEvent.SideEffect;
import dev.relay.failure.HistoryEvent.Verb;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.JobState;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** The figures the failure tests print and assert, read from a recorded history. */
final class HistoryQueries {
  private HistoryQueries() {}

  static List<LeaseGranted> grants(List<HistoryEvent> events) {
    return events.stream()
        .filter(e -> e instanceof LeaseGranted)
        .map(e -> (LeaseGranted) e)
        .toList();
  }

  static boolean isAcceptedAck(HistoryEvent event) {
    return event instanceof Settled s && s.verb() == Verb.ACK && s.accepted();
  }

  static long acceptedAcks(List<HistoryEvent> events) {
    return events.stream().filter(HistoryQueries::isAcceptedAck).count();
  }

  static long enqueuesAcked(List<HistoryEvent> events) {
    return events.stream().filter(e -> e instanceof EnqueueAcked).count();
  }

  /** Enqueues acknowledged as already there: a repeat after an answer a crash swallowed. */
  static long enqueuesFoundByKey(List<HistoryEvent> events) {
    return events.stream().filter(e -> e instanceof EnqueueAcked a && !a.created()).count();
  }

  /** Refused ACKs and NACKs by error code, client-side codes included. */
  static Map<ErrorCode, Long> refusals(List<HistoryEvent> events, Verb verb) {
    return events.stream()
        .filter(e -> e instanceof Settled s && s.verb() == verb && !s.accepted())
        .collect(
            Collectors.groupingBy(
                e -> ((Settled) e).refusal().orElseThrow(), TreeMap::new, Collectors.counting()));
  }

  /** Every job the history names, by enqueue or by lease, in id order. */
  static List<Long> jobIdsSeen(List<HistoryEvent> events) {
    Set<Long> ids = new TreeSet<>();
    for (HistoryEvent e : events) {
      if (e instanceof EnqueueAcked a) {
        ids.add(a.jobId());
      } else if (e instanceof LeaseGranted g) {
        ids.add(g.jobId());
      }
    }
    return List.copyOf(ids);
  }

  /** Jobs whose side effect ran more than once: what at-least-once costs a handler. */
  static Set<Long> jobsRunMoreThanOnce(List<HistoryEvent> events) {
    Map<Long, Long> runs =
        events.stream()
            .filter(e -> e instanceof SideEffect)
            .collect(Collectors.groupingBy(e -> ((SideEffect) e).jobId(), Collectors.counting()));
    return runs.entrySet().stream()
        .filter(r -> r.getValue() > 1)
        .map(Map.Entry::getKey)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  static Map<JobState, Long> byState(Collection<JobDetails> jobs) {
    Map<JobState, Long> byState = new EnumMap<>(JobState.class);
    jobs.forEach(j -> byState.merge(j.state(), 1L, Long::sum));
    return byState;
  }

  static long counter(ServerStats stats, String name) {
    Long value = stats.counters().get(name);
    if (value == null) {
      throw new AssertionError("no counter " + name + " in " + stats.counters());
    }
    return value;
  }
}
