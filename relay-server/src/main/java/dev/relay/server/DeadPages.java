package dev.relay.server;

import dev.relay.protocol.DeadJobs;
import dev.relay.protocol.JobInfo;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.server.store.DeadPage;
import dev.relay.server.store.JobView;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a page of dead jobs so its DEAD_JOBS frame fits {@link ProtocolLimits#FRAME_BYTES_MAX}, the
 * largest frame any client reads: pages are counted in jobs by the store and in bytes here.
 *
 * <p>A cut page ends after its last job, so the client continues from there with {@code
 * nextAfterJobId}; the first job always fits, because the largest {@link JobInfo} does.
 */
final class DeadPages {
  private DeadPages() {}

  static DeadJobs fit(DeadPage page) {
    return fit(page, ProtocolLimits.FRAME_BYTES_MAX);
  }

  static DeadJobs fit(DeadPage page, int frameBytesMax) {
    int budget = frameBytesMax - ProtocolLimits.FRAME_HEADER_BYTES - DeadJobs.encodedSize(0);
    List<JobInfo> jobs = new ArrayList<>(page.jobs().size());
    long bytes = 0;
    for (JobView view : page.jobs()) {
      JobInfo job = Conversions.jobInfo(view);
      bytes += job.encodedSize();
      if (bytes > budget) {
        if (jobs.isEmpty()) {
          throw new IllegalStateException("one largest JobInfo must fit in a DEAD_JOBS frame");
        }
        return new DeadJobs(jobs, jobs.get(jobs.size() - 1).jobId());
      }
      jobs.add(job);
    }
    return new DeadJobs(jobs, page.nextAfterJobId());
  }
}
