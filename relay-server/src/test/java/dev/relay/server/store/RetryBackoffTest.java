package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** RetryBackoff arithmetic: doubling, the cap, and jitter that is bounded and reproducible. */
class RetryBackoffTest {
  private static StoreConfig config(double jitter) {
    return StoreConfig.builder(Path.of("unused"))
        .backoffBase(Duration.ofSeconds(1))
        .backoffMax(Duration.ofSeconds(60))
        .backoffJitter(jitter)
        .build();
  }

  @Test
  void without_jitter_the_delay_doubles_per_attempt_up_to_the_cap() {
    RetryBackoff backoff = new RetryBackoff(config(0), new SplittableRandom(1));
    assertThat(backoff.delayMillis(1)).isEqualTo(1_000);
    assertThat(backoff.delayMillis(2)).isEqualTo(2_000);
    assertThat(backoff.delayMillis(6)).isEqualTo(32_000);
    assertThat(backoff.delayMillis(7)).isEqualTo(60_000);
    assertThat(backoff.delayMillis(StoreConfig.ATTEMPTS_MAX_MAX)).isEqualTo(60_000);
  }

  @Test
  void jitter_stays_within_its_fraction_and_never_passes_the_cap() {
    RetryBackoff backoff = new RetryBackoff(config(0.2), new SplittableRandom(7));
    boolean below = false;
    boolean above = false;
    for (int i = 0; i < 1000; i++) {
      long d = backoff.delayMillis(3);
      assertThat(d).isBetween(3_200L, 4_800L);
      below |= d < 4_000;
      above |= d > 4_000;
      assertThat(backoff.delayMillis(20)).isBetween(48_000L, 60_000L);
    }
    assertThat(below).isTrue();
    assertThat(above).isTrue();
  }

  @Test
  void the_same_seed_gives_the_same_delays() {
    RetryBackoff a = new RetryBackoff(config(0.5), new SplittableRandom(99));
    RetryBackoff b = new RetryBackoff(config(0.5), new SplittableRandom(99));
    for (int attempt = 1; attempt <= 10; attempt++) {
      assertThat(a.delayMillis(attempt)).isEqualTo(b.delayMillis(attempt));
    }
  }
}
