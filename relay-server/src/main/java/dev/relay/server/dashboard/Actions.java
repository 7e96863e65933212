package dev.relay.server.dashboard;

import dev.relay.protocol.ProtocolLimits;
import dev.relay.server.store.DeadGroup;
import dev.relay.server.store.DeadPage;
import dev.relay.server.store.JobStore;
import dev.relay.server.store.JobView;
import dev.relay.server.store.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.LongFunction;

/**
 * The dashboard's actions, each one or more of the store calls the protocol's admin requests make
 * (pause, resume, cancel, deadRequeueJob, deadPurgeJob, deadRequeue), so every change goes through
 * the writer. The handler has already checked the admin session and the CSRF token.
 *
 * <p>Each answers where the browser goes next and a notice code for that page: a code, never text
 * from the request, so a crafted link cannot put words in the dashboard's mouth.
 */
final class Actions {
  /** Most jobs one group requeue or purge moves; the operator repeats for more. */
  static final int GROUP_JOBS_MAX = 1000;

  /** Store commands of a group action in flight at once, below the writer queue's capacity. */
  static final int GROUP_COMMANDS_IN_FLIGHT_MAX = 64;

  /** Where to go after an action, and what to say there. */
  record Result(String location, String notice, long count) {}

  private Actions() {}

  /** Runs the action at {@code path}; an unknown path is a {@link Call.BadRequest}. */
  static CompletableFuture<Result> run(JobStore store, String path, Call call) {
    return switch (path) {
      case "/actions/pause" -> queue(call, store.pause(call.required("queue"), false));
      case "/actions/resume" -> queue(call, store.resume(call.required("queue")));
      case "/actions/cancel" -> job(call, id -> store.cancel(id));
      case "/actions/requeue" -> job(call, id -> store.deadRequeueJob("", id));
      case "/actions/purge" -> job(call, id -> store.deadPurgeJob("", id));
      case "/actions/requeue-all" ->
          store.deadRequeue("").thenApply(n -> new Result("/dead", "REQUEUED", n));
      case "/actions/requeue-group" -> group(store, call, store::deadRequeueJob, "REQUEUED");
      case "/actions/purge-group" -> group(store, call, store::deadPurgeJob, "PURGED");
      default -> throw new Call.BadRequest("no such action");
    };
  }

  private static CompletableFuture<Result> queue(Call call, CompletableFuture<Outcome> outcome) {
    String location = "/queue?name=" + Html.q(call.required("queue"));
    return outcome.thenApply(o -> new Result(location, o.name(), 0));
  }

  private static CompletableFuture<Result> job(
      Call call, LongFunction<CompletableFuture<Outcome>> action) {
    long id = call.number("job", -1, 1);
    if (id < 0) {
      throw new Call.BadRequest("job is required");
    }
    return action.apply(id).thenApply(o -> new Result("/job?id=" + id, o.name(), 0));
  }

  /**
   * Applies {@code action} to the dead jobs of one group (queue, reason, first error line), found
   * by paging the queue's dead list over at most {@link JobStore#DEAD_GROUPS_SCAN_MAX} jobs, at
   * most {@link #GROUP_JOBS_MAX} of them, {@link #GROUP_COMMANDS_IN_FLIGHT_MAX} at a time.
   */
  private static CompletableFuture<Result> group(
      JobStore store,
      Call call,
      BiFunction<String, Long, CompletableFuture<Outcome>> action,
      String notice) {
    DeadGroup group =
        new DeadGroup(call.required("queue"), call.param("reason"), call.param("error"), 0, 0);
    return members(store, group, 0, 0, new ArrayList<>())
        .thenCompose(ids -> apply(ids, 0, 0, id -> action.apply(group.queue(), id)))
        .thenApply(n -> new Result("/dead", notice, n));
  }

  private static CompletableFuture<List<Long>> members(
      JobStore store, DeadGroup group, long after, long scanned, List<Long> ids) {
    int page = ProtocolLimits.DEAD_LIST_PAGE_MAX;
    return store
        .deadList(group.queue(), after, page)
        .thenCompose(
            (DeadPage p) -> {
              for (JobView j : p.jobs()) {
                if (ids.size() < GROUP_JOBS_MAX
                    && group.holds(j.queue(), j.deadReason(), j.lastError())) {
                  ids.add(j.id());
                }
              }
              long seen = scanned + p.jobs().size();
              boolean more =
                  p.nextAfterJobId() != 0
                      && ids.size() < GROUP_JOBS_MAX
                      && seen < JobStore.DEAD_GROUPS_SCAN_MAX;
              return more
                  ? members(store, group, p.nextAfterJobId(), seen, ids)
                  : CompletableFuture.completedFuture(ids);
            });
  }

  private static CompletableFuture<Long> apply(
      List<Long> ids, int from, long done, LongFunction<CompletableFuture<Outcome>> action) {
    if (from >= ids.size()) {
      return CompletableFuture.completedFuture(done);
    }
    int to = Math.min(ids.size(), from + GROUP_COMMANDS_IN_FLIGHT_MAX);
    List<CompletableFuture<Outcome>> batch = new ArrayList<>();
    for (long id : ids.subList(from, to)) {
      batch.add(action.apply(id));
    }
    return CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new))
        .thenCompose(
            v -> {
              long ok = batch.stream().filter(f -> f.join() == Outcome.OK).count();
              return apply(ids, to, done + ok, action);
            });
  }

  /** The words for a notice code from an action's redirect; "" for anything else. */
  static String notice(String code, long count) {
    return switch (code) {
      case "OK" -> "Done.";
      case "UNKNOWN_JOB" -> "No job has this id.";
      case "UNKNOWN_QUEUE" -> "No queue has this name.";
      case "INVALID_STATE" -> "The job is not in a state this action applies to.";
      case "REQUEUED" -> count + " dead jobs requeued.";
      case "PURGED" -> count + " dead jobs purged.";
      default -> "";
    };
  }
}
