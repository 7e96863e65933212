package dev.relay.server.dashboard;

import static dev.relay.server.dashboard.Html.e;

import dev.relay.server.dashboard.Sampler.QueueRates;
import dev.relay.server.dashboard.Sampler.Sample;
import dev.relay.server.store.QueueSnapshot;
import dev.relay.server.store.StoreStats;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.ToLongFunction;

/**
 * The overview: server-wide rates and charts from the sampler, and every queue with its counts,
 * paused state, oldest ready age and per-queue rates, from one STATS read.
 */
final class OverviewPage {
  /** Most queues one overview lists; the rest are counted, not shown. */
  static final int QUEUES_SHOWN_MAX = 500;

  private OverviewPage() {}

  static CompletableFuture<String> render(
      ServerView server, Sampler sampler, Visitor visitor, String notice, Executor loop) {
    return server
        .store()
        .stats()
        .thenApplyAsync(
            stats ->
                Html.page(
                    "Overview",
                    visitor,
                    notice,
                    rates(sampler.samples()) + queues(stats, sampler.queueRates(), visitor)),
            loop);
  }

  /** Rates over the sampled window and the two charts (drawn by dashboard.js from data-points). */
  static String rates(List<Sample> samples) {
    StringBuilder b = new StringBuilder("<section class=\"rates\">");
    if (samples.size() < 2) {
      return b.append("<p>Rates and charts appear after two samples.</p></section>").toString();
    }
    Sample first = samples.get(0);
    Sample last = samples.get(samples.size() - 1);
    double seconds = Math.max(1, last.atMillis() - first.atMillis()) / 1000.0;
    b.append("<p>Over the last ")
        .append(Html.age(last.atMillis() - first.atMillis()))
        .append(", per second: enqueue <b id=\"rate-enqueue\">")
        .append(Html.rate((last.enqueued() - first.enqueued()) / seconds))
        .append("</b>, ACK <b>")
        .append(Html.rate((last.acked() - first.acked()) / seconds))
        .append("</b>, NACK <b>")
        .append(Html.rate((last.nacked() - first.nacked()) / seconds))
        .append("</b>, dead <b>")
        .append(Html.rate((last.dead() - first.dead()) / seconds))
        .append("</b>.</p>");
    b.append(
        chart(
            "chart-throughput", "Throughput: ACKs per second", perSecond(samples, Sample::acked)));
    b.append(chart("chart-depth", "Depth: ready, scheduled and leased jobs", depth(samples)));
    return b.append("</section>").toString();
  }

  private static String chart(String id, String title, String points) {
    return "<figure class=\"chart\" id=\""
        + id
        + "\" data-points=\""
        + points
        + "\"><figcaption>"
        + e(title)
        + "</figcaption><noscript>Charts need JavaScript.</noscript></figure>";
  }

  /** "seconds,value" pairs, seconds relative to the last sample, one per sample interval. */
  private static String perSecond(List<Sample> samples, ToLongFunction<Sample> counter) {
    StringBuilder b = new StringBuilder();
    Sample last = samples.get(samples.size() - 1);
    for (int i = 1; i < samples.size(); i++) {
      Sample before = samples.get(i - 1);
      Sample now = samples.get(i);
      double dt = Math.max(1, now.atMillis() - before.atMillis()) / 1000.0;
      double value = (counter.applyAsLong(now) - counter.applyAsLong(before)) / dt;
      b.append(b.length() == 0 ? "" : " ")
          .append((now.atMillis() - last.atMillis()) / 1000.0)
          .append(',')
          .append(Html.rate(value));
    }
    return b.toString();
  }

  private static String depth(List<Sample> samples) {
    StringBuilder b = new StringBuilder();
    Sample last = samples.get(samples.size() - 1);
    for (Sample s : samples) {
      b.append(b.length() == 0 ? "" : " ")
          .append((s.atMillis() - last.atMillis()) / 1000.0)
          .append(',')
          .append(s.depth());
    }
    return b.toString();
  }

  private static String queues(StoreStats stats, Map<String, QueueRates> rates, Visitor visitor) {
    StringBuilder b =
        new StringBuilder(
            "<table id=\"queues\"><thead><tr><th>Queue</th><th>State</th><th>Ready</th>"
                + "<th>Scheduled</th><th>Leased</th><th>Done</th><th>Dead</th>"
                + "<th>Oldest ready</th><th>Enqueue/min</th><th>ACK/min</th><th>NACK/min</th>"
                + "<th>Dead/min</th><th></th></tr></thead><tbody>");
    List<QueueSnapshot> queues = stats.queues();
    for (QueueSnapshot q : queues.subList(0, Math.min(QUEUES_SHOWN_MAX, queues.size()))) {
      b.append("<tr><td>")
          .append(Html.queueLink(q.queue()))
          .append("</td><td>")
          .append(q.paused() ? "<span class=\"badge paused\">paused</span>" : "active")
          .append("</td><td>")
          .append(q.ready())
          .append("</td><td>")
          .append(q.scheduled())
          .append("</td><td>")
          .append(q.leased())
          .append("</td><td>")
          .append(q.done())
          .append("</td><td>")
          .append(q.dead())
          .append("</td><td>")
          .append(Html.age(q.oldestReadyAgeMillis()))
          .append("</td>");
      QueueRates r = rates.get(q.queue());
      for (int i = 0; i < Sampler.QUEUE_EVENTS.size(); i++) {
        b.append("<td>").append(r == null ? "–" : Html.rate(r.perMinute()[i])).append("</td>");
      }
      b.append("<td>").append(QueuePage.pauseForm(visitor, q)).append("</td></tr>");
    }
    b.append("</tbody></table>");
    if (queues.isEmpty()) {
      b.append("<p>No queues yet.</p>");
    } else if (queues.size() > QUEUES_SHOWN_MAX) {
      b.append("<p>")
          .append(queues.size() - QUEUES_SHOWN_MAX)
          .append(" more queues not shown.</p>");
    }
    return b.toString();
  }
}
