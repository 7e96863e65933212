package dev.relay.client.cli;

import dev.relay.client.QueueStatus;
import dev.relay.client.RelayClient;
import dev.relay.client.ServerStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code relay stats}: job counts per queue and state, and the server's counters. */
@Command(
    name = "stats",
    mixinStandardHelpOptions = true,
    description = "Show job counts per queue and state, oldest ready age, and server counters.")
final class StatsCommand implements Callable<Integer> {
  private static final List<String> HEADER =
      List.of("QUEUE", "PAUSED", "READY", "SCHEDULED", "LEASED", "DONE", "DEAD", "OLDEST READY");

  @ParentCommand RelayCli relay;

  @Override
  public Integer call() {
    try (RelayClient client = relay.connect()) {
      ServerStats stats = RelayClient.await(client.stats());
      relay.print(text(stats), json(stats));
    }
    return ExitCodes.OK;
  }

  static String text(ServerStats stats) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(HEADER);
    for (QueueStatus q : stats.queues()) {
      rows.add(
          List.of(
              q.queue(),
              q.paused() ? "yes" : "no",
              Long.toString(q.ready()),
              Long.toString(q.scheduled()),
              Long.toString(q.leased()),
              Long.toString(q.done()),
              Long.toString(q.dead()),
              q.oldestReadyAge().map(age -> Table.age(age.toMillis())).orElse("-")));
    }
    StringBuilder out = new StringBuilder(Table.render(rows));
    if (stats.queues().isEmpty()) {
      out.append("(no queues)\n");
    }
    if (!stats.counters().isEmpty()) {
      out.append('\n');
      List<List<String>> counters = new ArrayList<>();
      counters.add(List.of("COUNTER", "VALUE"));
      stats.counters().forEach((name, value) -> counters.add(List.of(name, Long.toString(value))));
      out.append(Table.render(counters));
    }
    return out.toString().stripTrailing();
  }

  static Map<String, Object> json(ServerStats stats) {
    List<Map<String, Object>> queues = new ArrayList<>();
    for (QueueStatus q : stats.queues()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("queue", q.queue());
      m.put("paused", q.paused());
      m.put("ready", q.ready());
      m.put("scheduled", q.scheduled());
      m.put("leased", q.leased());
      m.put("done", q.done());
      m.put("dead", q.dead());
      // null when no job is ready, as docs/client.md says; never the wire's -1
      m.put("oldestReadyAgeMillis", q.oldestReadyAge().map(Duration::toMillis).orElse(null));
      queues.add(m);
    }
    Map<String, Object> counters = new LinkedHashMap<>(stats.counters());
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("queues", queues);
    json.put("counters", counters);
    return json;
  }
}
