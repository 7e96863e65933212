package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The queue both writers share: OVERLOADED when full, INTERNAL with the cause once broken, and a
 * close that lets the writer finish what was queued before it and refuses what comes after.
 */
class WriterQueueTest {
  private static final class Job implements WriterQueue.Task {
    final CompletableFuture<String> future = new CompletableFuture<>();

    @Override
    public CompletableFuture<?> future() {
      return future;
    }

    @Override
    public void complete() {
      future.complete("done");
    }
  }

  private final Job stop = new Job();

  @Test
  void a_full_queue_fails_the_next_task_at_once_with_overloaded() {
    WriterQueue<Job> queue = new WriterQueue<>(2, stop);
    Job a = new Job();
    Job b = new Job();
    Job c = new Job();
    queue.offer(a);
    queue.offer(b);
    queue.offer(c);

    assertThat(a.future).isNotDone();
    assertThat(b.future).isNotDone();
    assertThat(failure(c)).extracting(StoreException::code).isEqualTo(StoreError.OVERLOADED);
    assertThat(failure(c)).hasMessageContaining("writerQueueCapacity");
    assertThat(queue.depth()).isEqualTo(2);
  }

  @Test
  void a_broken_writer_fails_its_batch_what_is_queued_and_every_later_task_with_the_cause() {
    WriterQueue<Job> queue = new WriterQueue<>(8, stop);
    Job inBatch = new Job();
    Job queued = new Job();
    queue.offer(queued);
    IllegalStateException cause = new IllegalStateException("invariant");

    queue.stopBroken(List.of(inBatch), cause);
    Job later = new Job();
    queue.offer(later);

    for (Job job : List.of(inBatch, queued, later)) {
      assertThat(failure(job)).extracting(StoreException::code).isEqualTo(StoreError.INTERNAL);
      assertThat(failure(job)).hasMessageContaining("invariant");
    }
    assertThat(queue.depth()).isZero();
  }

  @Test
  void close_lets_the_writer_finish_what_was_queued_and_refuses_what_comes_after()
      throws Exception {
    WriterQueue<Job> queue = new WriterQueue<>(8, stop);
    List<Job> queued = List.of(new Job(), new Job(), new Job());
    queued.forEach(queue::offer);
    Thread writer =
        new Thread(
            () -> {
              List<Job> batch = new ArrayList<>();
              boolean stopped = false;
              try {
                while (!stopped) {
                  batch.clear();
                  queue.takeBatch(batch, 2);
                  for (Job job : batch) {
                    if (job == stop) {
                      stopped = true;
                    } else {
                      job.future.complete("done");
                    }
                  }
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    writer.start();

    queue.close(writer);
    Job afterClose = new Job();
    queue.offer(afterClose);

    assertThat(writer.isAlive()).isFalse();
    for (Job job : queued) {
      assertThat(WriterQueue.await(job.future)).isEqualTo("done");
    }
    assertThat(failure(afterClose))
        .extracting(StoreException::code)
        .isEqualTo(StoreError.SHUTTING_DOWN);
  }

  @Test
  void await_rethrows_the_tasks_store_exception() {
    CompletableFuture<String> future = new CompletableFuture<>();
    future.completeExceptionally(new StoreException(StoreError.INVALID_STATE, "no such job"));

    assertThatThrownBy(() -> WriterQueue.await(future))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("no such job");
  }

  private static StoreException failure(Job job) {
    assertThat(job.future).isCompletedExceptionally();
    Throwable[] thrown = new Throwable[1];
    job.future.whenComplete((result, e) -> thrown[0] = e);
    return (StoreException) thrown[0];
  }
}
