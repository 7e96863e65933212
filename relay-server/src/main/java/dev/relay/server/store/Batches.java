package dev.relay.server.store;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A bulk change run as writer commands of a bounded batch each, repeated until a batch comes back
 * short, so other traffic interleaves: the dead requeue and lease expiry of both backends.
 */
public final class Batches {
  private Batches() {}

  /** Runs {@code batch} until it changes fewer than {@code batchMax} jobs; answers the total. */
  public static CompletableFuture<Long> total(
      Supplier<CompletableFuture<Long>> batch, int batchMax) {
    return total(batch, batchMax, 0);
  }

  private static CompletableFuture<Long> total(
      Supplier<CompletableFuture<Long>> batch, int batchMax, long before) {
    return batch
        .get()
        .thenCompose(
            n ->
                n < batchMax
                    ? CompletableFuture.completedFuture(before + n)
                    : total(batch, batchMax, before + n));
  }

  /**
   * Runs the blocking expiry {@code batch} until it ends fewer than {@link
   * JobStore#EXPIRE_BATCH_MAX} leases; answers the sums.
   */
  public static ExpiryResult expiry(Supplier<ExpiryResult> batch) {
    long requeued = 0;
    long dead = 0;
    while (true) {
      ExpiryResult r = batch.get();
      requeued += r.requeued();
      dead += r.dead();
      if (r.requeued() + r.dead() < JobStore.EXPIRE_BATCH_MAX) {
        return new ExpiryResult(requeued, dead);
      }
    }
  }
}
