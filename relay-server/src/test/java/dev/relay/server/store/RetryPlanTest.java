package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * What becomes of a job whose attempt failed: dead once its attempts are spent, else ready after
 * the NACK's own delay, the backoff, or at once after a restart.
 */
class RetryPlanTest {
  private static final long NOW = 1_000_000;

  /** Backoff without jitter: 1 s, 2 s, 4 s, ... */
  private static RetryBackoff backoff() {
    StoreConfig config =
        StoreConfig.builder(Path.of("unused"))
            .backoffBase(Duration.ofSeconds(1))
            .backoffMax(Duration.ofSeconds(60))
            .backoffJitter(0)
            .build();
    return new RetryBackoff(config, new SplittableRandom(1));
  }

  @Test
  void a_nack_with_a_delay_is_retried_after_that_delay() {
    RetryPlan plan = RetryPlan.afterNack(1, 3, Duration.ofMillis(250), backoff());

    assertThat(plan.dead()).isFalse();
    assertThat(plan.atMillis(NOW)).isEqualTo(NOW + 250);
  }

  @Test
  void a_nack_without_a_delay_is_retried_after_the_backoff_of_its_attempt() {
    RetryPlan plan = RetryPlan.afterNack(2, 3, null, backoff());

    assertThat(plan.dead()).isFalse();
    assertThat(plan.atMillis(NOW)).isEqualTo(NOW + 2_000);
  }

  @Test
  void a_nack_of_the_last_attempt_makes_the_job_dead_now_whatever_the_delay() {
    RetryPlan plan = RetryPlan.afterNack(3, 3, Duration.ofMinutes(5), backoff());

    assertThat(plan.dead()).isTrue();
    assertThat(plan.atMillis(NOW)).isEqualTo(NOW);
  }

  @Test
  void an_expired_lease_counts_as_an_attempt_and_is_retried_after_the_backoff() {
    assertThat(RetryPlan.afterExpiry(1, 3, backoff()).atMillis(NOW)).isEqualTo(NOW + 1_000);
    assertThat(RetryPlan.afterExpiry(3, 3, backoff()).dead()).isTrue();
  }

  @Test
  void a_lease_ended_by_a_restart_is_ready_at_once_unless_its_attempts_are_spent() {
    RetryPlan alive = RetryPlan.afterRestart(1, 3);

    assertThat(alive.dead()).isFalse();
    assertThat(alive.atMillis(NOW)).isEqualTo(NOW);
    assertThat(RetryPlan.afterRestart(3, 3).dead()).isTrue();
  }
}
