package dev.relay.server.store;

import java.util.List;

/**
 * One page of dead jobs in id order.
 *
 * @param jobs the dead jobs of this page
 * @param nextAfterJobId pass as {@code afterJobId} to read the next page; 0 when this is the end
 */
public record DeadPage(List<JobView> jobs, long nextAfterJobId) {
  public DeadPage {
    jobs = List.copyOf(jobs);
  }
}
