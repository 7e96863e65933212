package dev.relay.server.store;

import java.util.List;

/**
 * One page of the jobs of a queue in one state, in the order asked for.
 *
 * @param jobs the jobs of this page
 * @param nextAfterJobId pass as {@code afterJobId} to read the next page; 0 when this is the end
 */
public record JobsPage(List<JobView> jobs, long nextAfterJobId) {
  public JobsPage {
    jobs = List.copyOf(jobs);
  }
}
