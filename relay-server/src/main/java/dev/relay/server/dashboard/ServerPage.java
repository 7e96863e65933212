package dev.relay.server.dashboard;

import static dev.relay.server.dashboard.Html.e;

import dev.relay.server.dashboard.Sampler.Sample;
import dev.relay.server.store.StoreStats;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The server: version, uptime, connections, the writer's queue, commit rate and mean batch over the
 * sampled window, database size and every limit in force.
 */
final class ServerPage {
  private ServerPage() {}

  static CompletableFuture<String> render(
      ServerView server, Sampler sampler, Call call, Executor loop) {
    return server
        .store()
        .stats()
        .thenApplyAsync(
            stats ->
                Html.page(
                    "Server",
                    call.visitor(),
                    call.notice(),
                    facts(server, sampler.samples(), stats) + settings(server.settings())),
            loop);
  }

  private static String facts(ServerView server, List<Sample> samples, StoreStats stats) {
    StringBuilder b = new StringBuilder("<table class=\"fields\" id=\"server-facts\"><tbody>");
    row(b, "Version", e(server.version()));
    row(b, "Uptime", Html.age(server.clock().millis() - server.startedAt().toEpochMilli()));
    row(b, "Protocol connections", Integer.toString(server.connections().getAsInt()));
    row(b, "Writer queue depth", Integer.toString(stats.writerQueueDepth()));
    row(b, "Database size", Html.bytes(stats.databaseBytes()));
    row(b, "Commits since start", Long.toString(stats.commits()));
    if (samples.size() >= 2) {
      Sample first = samples.get(0);
      Sample last = samples.get(samples.size() - 1);
      double seconds = Math.max(1, last.atMillis() - first.atMillis()) / 1000.0;
      long commits = last.commits() - first.commits();
      long commands = last.committedCommands() - first.committedCommands();
      row(
          b,
          "Commits per second (last " + Html.age(last.atMillis() - first.atMillis()) + ")",
          Html.rate(commits / seconds));
      row(
          b,
          "Mean batch (commands per commit)",
          commits == 0 ? "–" : Html.rate((double) commands / commits));
    } else {
      long commits = stats.commits();
      row(
          b,
          "Mean batch since start",
          commits == 0 ? "–" : Html.rate((double) stats.committedCommands() / commits));
    }
    return b.append("</tbody></table>").toString();
  }

  private static String settings(List<Setting> settings) {
    StringBuilder b =
        new StringBuilder("<h2>Limits in force</h2><table class=\"fields\" id=\"limits\"><tbody>");
    for (Setting s : settings) {
      row(b, e(s.name()), e(s.value()));
    }
    return b.append("</tbody></table>").toString();
  }

  private static void row(StringBuilder b, String name, String valueHtml) {
    b.append("<tr><th>").append(name).append("</th><td>").append(valueHtml).append("</td></tr>");
  }
}
