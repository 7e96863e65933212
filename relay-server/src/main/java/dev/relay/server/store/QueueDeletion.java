package dev.relay.server.store;

/**
 * The answer to deleting a queue: OK, UNKNOWN_QUEUE, or INVALID_STATE with the jobs that keep it.
 *
 * @param outcome OK when the queue was deleted
 * @param ready ready jobs (due or scheduled) that kept it, for INVALID_STATE
 * @param leased leased jobs that kept it, for INVALID_STATE
 * @param dead dead jobs that kept it, for INVALID_STATE
 * @param finishedDeleted done and cancelled jobs deleted with it, for OK
 */
public record QueueDeletion(
    Outcome outcome, long ready, long leased, long dead, long finishedDeleted) {
  static QueueDeletion of(Outcome outcome) {
    return new QueueDeletion(outcome, 0, 0, 0, 0);
  }
}
