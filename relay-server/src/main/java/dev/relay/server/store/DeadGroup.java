package dev.relay.server.store;

/**
 * Dead jobs that died the same way: one queue, one dead reason, one first line of the last error.
 *
 * @param queue the queue
 * @param reason the dead reason ({@code handler error}, {@code lease expired}, ...)
 * @param errorLine the first line of the last error, at most {@link #ERROR_LINE_CHARS_MAX} chars
 * @param count how many of the scanned dead jobs belong to the group
 * @param firstJobId the lowest job id of the group, an example to inspect
 */
public record DeadGroup(
    String queue, String reason, String errorLine, long count, long firstJobId) {
  /** Longest error line a group is keyed by; longer lines are cut there. */
  public static final int ERROR_LINE_CHARS_MAX = 160;

  /** The first line of {@code lastError}, cut to {@link #ERROR_LINE_CHARS_MAX}; "" for none. */
  public static String errorLine(String lastError) {
    if (lastError == null) {
      return "";
    }
    int end = lastError.indexOf('\n');
    String line = (end < 0 ? lastError : lastError.substring(0, end)).stripTrailing();
    return line.length() <= ERROR_LINE_CHARS_MAX ? line : line.substring(0, ERROR_LINE_CHARS_MAX);
  }

  /** Whether a dead job with this queue, reason and last error belongs to the group. */
  public boolean holds(String jobQueue, String jobReason, String lastError) {
    return queue.equals(jobQueue)
        && reason.equals(jobReason == null ? "" : jobReason)
        && errorLine.equals(errorLine(lastError));
  }
}
