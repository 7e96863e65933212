package dev.relay.client;

/**
 * Hooks a {@link Worker} calls as jobs move through it, for metrics and logs. Every method has an
 * empty default. They are called on the worker's handler and timer threads or the client's callback
 * threads, so they should be quick; an exception thrown from one is logged and ignored.
 */
public interface WorkerListener {
  /** The handler is about to run {@code job}. */
  default void jobStarted(Job job) {}

  /** The server acknowledged the job done. */
  default void acked(Job job) {}

  /**
   * The handler threw {@code error}, or ran past the worker's handler timeout (a {@link
   * java.util.concurrent.TimeoutException}); a NACK follows.
   */
  default void handlerFailed(Job job, Throwable error) {}

  /** The server recorded the job failed, with {@code errorText}. */
  default void nacked(Job job, String errorText) {}

  /** The lease was lost ({@code reason}); the job may run elsewhere and this result is dropped. */
  default void leaseLost(Job job, String reason) {}

  /** The job was given back unfinished at shutdown, ready for another worker. */
  default void released(Job job) {}
}
