package dev.relay.server;

import dev.relay.protocol.DeadJobs;
import dev.relay.protocol.JobInfo;
import dev.relay.protocol.Jobs;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.server.store.DeadPage;
import dev.relay.server.store.JobView;
import dev.relay.server.store.JobsPage;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a page of jobs (DEAD_JOBS, JOBS) so its frame fits {@link ProtocolLimits#FRAME_BYTES_MAX},
 * the largest frame any client reads: pages are counted in jobs by the store and in bytes here.
 *
 * <p>A cut page ends after its last job, so the client continues from there with {@code
 * nextAfterJobId}; the first job always fits, because the largest {@link JobInfo} does.
 */
final class JobPages {
  private JobPages() {}

  static DeadJobs fit(DeadPage page) {
    return fit(page, ProtocolLimits.FRAME_BYTES_MAX);
  }

  static DeadJobs fit(DeadPage page, int frameBytesMax) {
    List<JobInfo> jobs = fitted(page.jobs(), frameBytesMax - DeadJobs.encodedSize(0));
    return jobs.size() < page.jobs().size()
        ? new DeadJobs(jobs, jobs.get(jobs.size() - 1).jobId())
        : new DeadJobs(jobs, page.nextAfterJobId());
  }

  static Jobs fit(JobsPage page) {
    return fit(page, ProtocolLimits.FRAME_BYTES_MAX);
  }

  static Jobs fit(JobsPage page, int frameBytesMax) {
    List<JobInfo> jobs = fitted(page.jobs(), frameBytesMax - Jobs.encodedSize(0));
    return jobs.size() < page.jobs().size()
        ? new Jobs(jobs, jobs.get(jobs.size() - 1).jobId())
        : new Jobs(jobs, page.nextAfterJobId());
  }

  /** The leading jobs whose encodings fit {@code bodyBytes} less the frame header; at least one. */
  private static List<JobInfo> fitted(List<JobView> views, int bodyBytes) {
    int budget = bodyBytes - ProtocolLimits.FRAME_HEADER_BYTES;
    List<JobInfo> jobs = new ArrayList<>(views.size());
    long bytes = 0;
    for (JobView view : views) {
      JobInfo job = Conversions.jobInfo(view);
      bytes += job.encodedSize();
      if (bytes > budget) {
        if (jobs.isEmpty()) {
          throw new IllegalStateException("one largest JobInfo must fit in a page's frame");
        }
        return jobs;
      }
      jobs.add(job);
    }
    return jobs;
  }
}
