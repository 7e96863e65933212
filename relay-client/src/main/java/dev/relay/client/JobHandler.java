package dev.relay.client;

/**
 * The code a {@link Worker} runs for each leased job. Returning normally acknowledges the job
 * (ACK); throwing reports it failed (NACK, retried after the server's backoff), and throwing {@link
 * RetryLaterException} asks for a specific retry delay.
 *
 * <p>Relay delivers at least once: a job can run again after a crash, a lost lease or a lost ACK,
 * so a handler must be idempotent. It should also watch {@link Job#leaseLost()} or {@link
 * Job#onLeaseLost()} in long work: once the lease is lost another worker may run the job, and this
 * run's result is discarded.
 */
@FunctionalInterface
public interface JobHandler {
  /** Runs one job. */
  void handle(Job job) throws Exception;
}
