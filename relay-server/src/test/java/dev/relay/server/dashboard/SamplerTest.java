package dev.relay.server.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.server.store.JobStore;
import dev.relay.server.store.NewJob;
import dev.relay.server.store.StoreConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sampler's ring keeps at most samplesMax samples and per-queue rates follow the counters. */
class SamplerTest {
  static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;
  final AtomicLong now = new AtomicLong(Instant.parse("2030-01-01T00:00:00Z").toEpochMilli());
  final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
  JobStore store;

  @BeforeEach
  void open() {
    store = JobStore.open(StoreConfig.defaults(dir), clock);
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** Takes one sample and waits (bounded) for its STATS read to land in the ring. */
  private void sampleAt(Sampler sampler, long atMillis) {
    now.set(atMillis);
    sampler.sample();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!newestAt(sampler, atMillis)) {
      assertThat(System.nanoTime()).as("sample landed within " + WAIT).isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  private static boolean newestAt(Sampler sampler, long atMillis) {
    List<Sampler.Sample> samples = sampler.samples();
    return !samples.isEmpty() && samples.get(samples.size() - 1).atMillis() == atMillis;
  }

  private void enqueue(String queue) {
    store.enqueue(new NewJob(queue, "x".getBytes(StandardCharsets.UTF_8), 0, null, 1, null)).join();
  }

  @Test
  void the_ring_keeps_the_newest_samples_max_samples() {
    Sampler sampler = new Sampler(store, clock, 3);
    long start = now.get();
    for (int i = 0; i < 3; i++) {
      sampleAt(sampler, start + i * 1000L);
    }
    assertThat(sampler.samples()).hasSize(3);

    sampleAt(sampler, start + 3000);

    assertThat(sampler.samples())
        .extracting(Sampler.Sample::atMillis)
        .containsExactly(start + 1000, start + 2000, start + 3000);
  }

  @Test
  void a_sample_holds_the_store_counters_and_the_depth() {
    Sampler sampler = new Sampler(store, clock, 10);
    enqueue("q");
    enqueue("q");

    sampleAt(sampler, now.get() + 1);

    Sampler.Sample s = sampler.samples().get(0);
    assertThat(s.enqueued()).isEqualTo(2);
    assertThat(s.depth()).isEqualTo(2);
    assertThat(s.commits()).isEqualTo(store.counters().commits());
  }

  @Test
  void queue_rates_count_events_per_minute_since_the_older_anchor() {
    Sampler sampler = new Sampler(store, clock, 10);
    long start = now.get();
    assertThat(sampler.queueRates()).isEmpty();
    sampleAt(sampler, start);
    enqueue("q");
    enqueue("q");
    now.set(start + 30_000);

    assertThat(sampler.queueRates().get("q").perMinute()[0]).isEqualTo(4.0);

    sampleAt(sampler, start + Sampler.QUEUE_RATE_WINDOW_MILLIS);
    sampleAt(sampler, start + 2 * Sampler.QUEUE_RATE_WINDOW_MILLIS);
    enqueue("q");
    now.set(start + 3 * Sampler.QUEUE_RATE_WINDOW_MILLIS);

    // The older anchor is now the one taken one window in: one enqueue in two minutes.
    assertThat(sampler.queueRates().get("q").perMinute()[0]).isEqualTo(0.5);
  }
}
