package dev.relay.protocol;

import java.util.List;

/**
 * The answer to JOBS_LIST: one page of jobs in the order asked for, and where the next page starts.
 *
 * <p>A page may hold fewer jobs than asked for, because the server keeps the frame within its cap;
 * only {@code nextAfterJobId == }{@link #NO_MORE} means the listing is complete.
 *
 * @param jobs 0..{@link ProtocolLimits#JOBS_LIST_PAGE_MAX} jobs
 * @param nextAfterJobId the {@code afterJobId} of the next page, or {@link #NO_MORE}
 */
public record Jobs(List<JobInfo> jobs, long nextAfterJobId) implements Response {
  /** The {@code nextAfterJobId} of the last page. */
  public static final long NO_MORE = 0;

  public Jobs {
    jobs = Checks.list("jobs", jobs, 0, ProtocolLimits.JOBS_LIST_PAGE_MAX);
    Checks.range("nextAfterJobId", nextAfterJobId, NO_MORE, Long.MAX_VALUE);
  }

  /** Encoded body size of a JOBS whose jobs encode to {@code jobsBytes} in total. */
  public static int encodedSize(int jobsBytes) {
    return WireSize.U16 + jobsBytes + WireSize.I64;
  }

  @Override
  public Opcode opcode() {
    return Opcode.JOBS;
  }
}
