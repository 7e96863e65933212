package dev.relay.bench;

import dev.relay.client.Job;
import dev.relay.client.WorkerListener;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Times lease+ACK per job as one {@code Worker} experiences it: from the moment a slot (semaphore
 * permit) of the worker became free, which is when the worker asks for a job to fill it, to the
 * moment the ACK reply for the job that filled it arrived.
 *
 * <p>A worker's permits are anonymous, so slots are paired with jobs first in, first out: every ACK
 * reply frees a slot at its arrival time, and every job the worker starts takes the oldest free
 * time. The interval therefore holds the wait for the worker's one outstanding LEASE, the LEASE
 * round trip (a durable commit), the hand-off to the handler thread, the no-op handler and the ACK
 * round trip (another durable commit). By Little's law its mean is the concurrency divided by the
 * throughput.
 */
final class SlotLatency implements WorkerListener {
  private final Histogram histogram;
  private final DrainProgress progress;
  private final Queue<Long> slotFreedNanos = new ConcurrentLinkedQueue<>();
  private final Map<Long, Long> jobSlotNanos = new ConcurrentHashMap<>();
  private final AtomicLong leasesLost = new AtomicLong();

  /** {@code histogram} must be safe for concurrent recording. */
  SlotLatency(Histogram histogram, DrainProgress progress) {
    this.histogram = histogram;
    this.progress = progress;
  }

  /** Every one of the worker's {@code concurrency} slots is free at {@code startNanos}. */
  void start(int concurrency, long startNanos) {
    for (int i = 0; i < concurrency; i++) {
      slotFreedNanos.add(startNanos);
    }
  }

  @Override
  public void jobStarted(Job job) {
    Long freed = slotFreedNanos.poll();
    jobSlotNanos.put(job.id(), freed == null ? System.nanoTime() : freed);
  }

  @Override
  public void acked(Job job) {
    long now = System.nanoTime();
    Long freed = jobSlotNanos.remove(job.id());
    if (freed != null) {
      histogram.recordValue(now - freed);
    }
    slotFreedNanos.add(now);
    progress.acked(now);
  }

  @Override
  public void leaseLost(Job job, String reason) {
    leasesLost.incrementAndGet();
    jobSlotNanos.remove(job.id());
    slotFreedNanos.add(System.nanoTime());
  }

  /** Leases the worker lost (its figures are then less exact); 0 in a healthy run. */
  long leasesLost() {
    return leasesLost.get();
  }
}
