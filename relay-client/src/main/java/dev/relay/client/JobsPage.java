package dev.relay.client;

import java.util.List;
import java.util.OptionalLong;

/**
 * One page of jobs from {@link RelayClient#jobsList} (a queue's jobs in one state, in the order
 * asked for) or {@link RelayClient#deadList} (dead jobs in job id order), and where the next page
 * starts. A page may hold fewer jobs than asked for (the server keeps each answer within its frame
 * cap); only an empty {@link #nextAfterJobId()} means the listing is complete.
 */
public final class JobsPage {
  private final List<JobDetails> jobs;
  private final OptionalLong nextAfterJobId;

  JobsPage(List<JobDetails> jobs, OptionalLong nextAfterJobId) {
    this.jobs = List.copyOf(jobs);
    this.nextAfterJobId = nextAfterJobId;
  }

  /** The jobs of this page. */
  public List<JobDetails> jobs() {
    return jobs;
  }

  /** The {@code afterJobId} to ask for the next page with; empty on the last page. */
  public OptionalLong nextAfterJobId() {
    return nextAfterJobId;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JobsPage other
        && jobs.equals(other.jobs)
        && nextAfterJobId.equals(other.nextAfterJobId);
  }

  @Override
  public int hashCode() {
    return jobs.hashCode() * 31 + nextAfterJobId.hashCode();
  }

  @Override
  public String toString() {
    return "JobsPage[jobs=" + jobs.size() + ", nextAfterJobId=" + nextAfterJobId + "]";
  }
}
