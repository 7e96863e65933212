package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The depth and queue-count caps of a new job: one under the cap passes, at the cap is refused. */
class QueueCapsTest {
  private static final StoreConfig CONFIG =
      StoreConfig.builder(Path.of("unused")).queueDepthMax(10).queuesMax(4).build();

  @Test
  void a_queue_below_its_depth_cap_takes_one_more_job_and_a_full_one_is_refused() {
    assertThatCode(() -> QueueCaps.checkDepth("q", 9, CONFIG)).doesNotThrowAnyException();
    assertThatThrownBy(() -> QueueCaps.checkDepth("q", 10, CONFIG))
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.code()).isEqualTo(StoreError.QUEUE_FULL))
        .hasMessage("QUEUE_FULL: queue 'q' holds 10 unfinished jobs (queueDepthMax 10)");
  }

  @Test
  void a_new_queue_is_refused_once_the_queues_fill_the_cap_and_the_message_says_how_to_free_one() {
    assertThatCode(() -> QueueCaps.checkQueueCount("q", 3, CONFIG)).doesNotThrowAnyException();
    assertThatThrownBy(() -> QueueCaps.checkQueueCount("q", 4, CONFIG))
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.code()).isEqualTo(StoreError.QUEUE_FULL))
        .hasMessageStartingWith(
            "QUEUE_FULL: cannot create queue 'q': 4 queues exist and queuesMax is 4")
        .hasMessageContaining("DELETE_QUEUE");
  }
}
