package dev.relay.server.dashboard;

import static dev.relay.server.dashboard.Html.e;
import static dev.relay.server.dashboard.Html.q;

import dev.relay.protocol.ListOrder;
import dev.relay.protocol.StateFilter;
import dev.relay.server.store.DeadGroup;
import dev.relay.server.store.JobView;
import dev.relay.server.store.JobsPage;
import dev.relay.server.store.QueueSnapshot;
import dev.relay.server.store.StoreStats;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One queue: its counts, pause and resume, and its jobs in one state, a page at a time, newest or
 * oldest first, through the store's JOBS_LIST read.
 */
final class QueuePage {
  /** Jobs on one page. */
  static final int PAGE_JOBS_MAX = 50;

  private QueuePage() {}

  static CompletableFuture<String> render(ServerView server, Call call, Executor loop) {
    String queue = call.required("name");
    StateFilter state = state(call.param("state"));
    ListOrder order =
        call.param("order").equals("oldest") ? ListOrder.OLDEST_FIRST : ListOrder.NEWEST_FIRST;
    long after = call.number("after", 0, 0);
    CompletableFuture<StoreStats> stats = server.store().stats();
    CompletableFuture<JobsPage> jobs =
        server.store().jobsList(queue, state, order, after, PAGE_JOBS_MAX);
    return stats.thenCombineAsync(
        jobs,
        (s, page) -> {
          Optional<QueueSnapshot> snapshot =
              s.queues().stream().filter(x -> x.queue().equals(queue)).findFirst();
          return Html.page(
              "Queue " + queue,
              call.visitor(),
              call.notice(),
              summary(call.visitor(), queue, snapshot)
                  + tabs(queue, state, order, snapshot)
                  + table(page)
                  + next(queue, state, order, page));
        },
        loop);
  }

  private static StateFilter state(String name) {
    if (name.isEmpty()) {
      return StateFilter.READY;
    }
    try {
      return StateFilter.valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new Call.BadRequest("state must be ready, scheduled, leased, done, dead or cancelled");
    }
  }

  /** Pause or resume, whichever applies; nothing for read-only visitors. */
  static String pauseForm(Visitor visitor, QueueSnapshot q) {
    return q.paused()
        ? Html.adminForm(visitor, "/actions/resume", "Resume", Map.of("queue", q.queue()), null)
        : Html.adminForm(
            visitor,
            "/actions/pause",
            "Pause",
            Map.of("queue", q.queue()),
            "Pause leasing from " + q.queue() + "?");
  }

  private static String summary(Visitor visitor, String queue, Optional<QueueSnapshot> q) {
    if (q.isEmpty()) {
      return "<p>No queue named <code>" + e(queue) + "</code> holds jobs.</p>";
    }
    QueueSnapshot s = q.get();
    return "<p id=\"queue-state\">"
        + (s.paused() ? "<span class=\"badge paused\">paused</span>" : "active")
        + " · oldest ready job waiting "
        + Html.age(s.oldestReadyAgeMillis())
        + "</p>"
        + pauseForm(visitor, s);
  }

  private static String tabs(
      String queue, StateFilter current, ListOrder order, Optional<QueueSnapshot> q) {
    StringBuilder b = new StringBuilder("<p class=\"tabs\">");
    for (StateFilter state : StateFilter.values()) {
      String name = state.name().toLowerCase(Locale.ROOT);
      b.append(state == current ? "<b>" : "")
          .append("<a href=\"/queue?name=")
          .append(e(q(queue)))
          .append("&amp;state=")
          .append(name)
          .append("\">")
          .append(name)
          .append(q.map(s -> " (" + count(s, state) + ")").orElse(""))
          .append("</a>")
          .append(state == current ? "</b> " : " ");
    }
    ListOrder other =
        order == ListOrder.NEWEST_FIRST ? ListOrder.OLDEST_FIRST : ListOrder.NEWEST_FIRST;
    return b.append("· <a href=\"/queue?name=")
        .append(e(q(queue)))
        .append("&amp;state=")
        .append(current.name().toLowerCase(Locale.ROOT))
        .append("&amp;order=")
        .append(other == ListOrder.OLDEST_FIRST ? "oldest" : "newest")
        .append("\">")
        .append(other == ListOrder.OLDEST_FIRST ? "oldest first" : "newest first")
        .append("</a></p>")
        .toString();
  }

  private static long count(QueueSnapshot s, StateFilter state) {
    return switch (state) {
      case READY -> s.ready();
      case SCHEDULED -> s.scheduled();
      case LEASED -> s.leased();
      case DONE -> s.done();
      case DEAD -> s.dead();
      case CANCELLED -> s.cancelled();
    };
  }

  static String table(Iterable<JobView> jobs) {
    StringBuilder b =
        new StringBuilder(
            "<table class=\"jobs\"><thead><tr><th>Job</th><th>Queue</th><th>Type</th>"
                + "<th>Priority</th><th>Attempts</th><th>Enqueued</th><th>Available</th>"
                + "<th>Finished</th><th>Size</th><th>Last error</th></tr></thead><tbody>");
    for (JobView j : jobs) {
      b.append("<tr><td>")
          .append(Html.jobLink(j.id()))
          .append("</td><td>")
          .append(Html.queueLink(j.queue()))
          .append("</td><td>")
          .append(e(j.type()))
          .append("</td><td>")
          .append(j.priority())
          .append("</td><td>")
          .append(j.attempts())
          .append('/')
          .append(j.attemptsMax())
          .append("</td><td>")
          .append(Html.time(j.enqueuedAt()))
          .append("</td><td>")
          .append(Html.time(j.availableAt()))
          .append("</td><td>")
          .append(Html.time(j.finishedAt()))
          .append("</td><td>")
          .append(Html.bytes(j.payloadBytes()))
          .append("</td><td>")
          .append(e(DeadGroup.errorLine(j.lastError())))
          .append("</td></tr>");
    }
    return b.append("</tbody></table>").toString();
  }

  private static String table(JobsPage page) {
    return page.jobs().isEmpty() ? "<p>No jobs in this state.</p>" : table(page.jobs());
  }

  private static String next(String queue, StateFilter state, ListOrder order, JobsPage page) {
    if (page.nextAfterJobId() == 0) {
      return "";
    }
    return "<p><a id=\"next-page\" href=\"/queue?name="
        + e(q(queue))
        + "&amp;state="
        + state.name().toLowerCase(Locale.ROOT)
        + "&amp;order="
        + (order == ListOrder.OLDEST_FIRST ? "oldest" : "newest")
        + "&amp;after="
        + page.nextAfterJobId()
        + "\">Next page</a></p>";
  }
}
