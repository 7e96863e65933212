package dev.relay.failure;

import dev.relay.client.Await;
import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.RelayClient;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * Polls INSPECT until a job reaches the state a failure test expects, or fails after a deadline.
 */
final class JobWaits {
  private JobWaits() {}

  /** Answers the first view of {@code jobId} that satisfies {@code condition}. */
  static JobDetails until(
      RelayClient client, long jobId, Predicate<JobDetails> condition, String what)
      throws Exception {
    AtomicReference<JobDetails> last = new AtomicReference<>();
    try {
      Await.until(
          () -> {
            last.set(RelayClient.await(client.inspect(jobId)));
            return condition.test(last.get());
          },
          "job " + jobId + " " + what);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last seen " + last.get(), e);
    }
    return last.get();
  }

  /**
   * Waits until this machine's clock, which the server process reads too, has passed the expiry of
   * {@code lease}: from then on the server treats the lease as expired.
   */
  static void untilExpired(Job lease) throws Exception {
    Await.until(
        () -> System.currentTimeMillis() > lease.leaseExpiresAt().toEpochMilli(),
        "the clock to pass the expiry of the lease on job " + lease.id());
  }
}
