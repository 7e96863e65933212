package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.failure.HistoryEvent.EnqueueAcked;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The recorder keeps every event from many threads and refuses to hand out a history with holes.
 */
final class HistoryTest {
  @Test
  void events_recorded_from_many_threads_are_all_kept() throws InterruptedException {
    History history = new History(4_000);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      long base = t * 1_000L;
      Thread thread =
          new Thread(
              () -> {
                for (long i = 1; i <= 1_000; i++) {
                  history.record(new EnqueueAcked(0, base + i, true));
                }
              });
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }

    assertThat(history.events())
        .hasSize(4_000)
        .extracting(e -> ((EnqueueAcked) e).jobId())
        .doesNotHaveDuplicates();
  }

  @Test
  void a_history_recorded_past_its_capacity_cannot_be_read() {
    History history = new History(2);
    for (long i = 1; i <= 3; i++) {
      history.record(new EnqueueAcked(0, i, true));
    }

    assertThatThrownBy(history::events)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("3 events recorded, capacity 2");
  }
}
