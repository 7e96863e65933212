package dev.relay.server.store;

/**
 * Counts for one queue.
 *
 * @param queue queue name
 * @param paused whether leasing from it is paused
 * @param ready ready jobs due now
 * @param scheduled ready jobs due later (delayed or backing off)
 * @param leased jobs under lease
 * @param done acked jobs still within retention
 * @param dead dead jobs
 * @param cancelled cancelled jobs still within retention
 * @param oldestReadyAgeMillis how long the oldest due job has been available, or -1 if none
 */
public record QueueSnapshot(
    String queue,
    boolean paused,
    long ready,
    long scheduled,
    long leased,
    long done,
    long dead,
    long cancelled,
    long oldestReadyAgeMillis) {}
