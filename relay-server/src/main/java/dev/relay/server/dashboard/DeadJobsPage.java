package dev.relay.server.dashboard;

import static dev.relay.server.dashboard.Html.e;

import dev.relay.server.store.DeadGroup;
import dev.relay.server.store.DeadGroups;
import dev.relay.server.store.DeadPage;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Dead jobs across queues: grouped by queue, reason and first error line, each group with bulk
 * requeue and purge, then the dead jobs themselves in id order, a page at a time.
 */
final class DeadJobsPage {
  /** Dead jobs listed on one page under the groups. */
  static final int PAGE_JOBS_MAX = 50;

  private DeadJobsPage() {}

  static CompletableFuture<String> render(ServerView server, Call call, Executor loop) {
    long after = call.number("after", 0, 0);
    CompletableFuture<DeadGroups> groups = server.store().deadGroups();
    CompletableFuture<DeadPage> jobs = server.store().deadList("", after, PAGE_JOBS_MAX);
    return groups.thenCombineAsync(
        jobs,
        (g, page) ->
            Html.page(
                "Dead jobs", call.visitor(), call.notice(), groups(call.visitor(), g) + jobs(page)),
        loop);
  }

  private static String groups(Visitor v, DeadGroups groups) {
    if (groups.groups().isEmpty()) {
      return "<p id=\"no-dead\">No dead jobs.</p>";
    }
    StringBuilder b = new StringBuilder();
    b.append(
        Html.adminForm(
            v,
            "/actions/requeue-all",
            "Requeue every dead job",
            Map.of(),
            "Requeue every dead job of every queue?"));
    b.append(
        "<table id=\"dead-groups\"><thead><tr><th>Queue</th><th>Reason</th><th>Error</th>"
            + "<th>Jobs</th><th>Example</th><th></th></tr></thead><tbody>");
    for (DeadGroup g : groups.groups()) {
      Map<String, String> key =
          Map.of("queue", g.queue(), "reason", g.reason(), "error", g.errorLine());
      b.append("<tr><td>")
          .append(Html.queueLink(g.queue()))
          .append("</td><td>")
          .append(e(g.reason()))
          .append("</td><td><code>")
          .append(e(g.errorLine()))
          .append("</code></td><td>")
          .append(g.count())
          .append("</td><td>")
          .append(Html.jobLink(g.firstJobId()))
          .append("</td><td>")
          .append(Html.adminForm(v, "/actions/requeue-group", "Requeue group", key, null))
          .append(
              Html.adminForm(
                  v,
                  "/actions/purge-group",
                  "Purge group",
                  key,
                  "Delete the " + g.count() + " dead jobs of this group for good?"))
          .append("</td></tr>");
    }
    b.append("</tbody></table>");
    if (!groups.complete()) {
      b.append("<p>Grouped from the ")
          .append(groups.scanned())
          .append(" oldest dead jobs; more exist.</p>");
    }
    return b.toString();
  }

  private static String jobs(DeadPage page) {
    if (page.jobs().isEmpty()) {
      return "";
    }
    String next =
        page.nextAfterJobId() == 0
            ? ""
            : "<p><a href=\"/dead?after=" + page.nextAfterJobId() + "\">Next page</a></p>";
    return "<h2>Dead jobs, oldest first</h2>" + QueuePage.table(page.jobs()) + next;
  }
}
