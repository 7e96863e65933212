package dev.relay.client;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The server's clock in tests: real time plus an offset the test can move forward, so a lease can
 * be made to expire at once without waiting for it.
 */
public final class ShiftableClock implements InstantSource {
  private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

  @Override
  public Instant instant() {
    return Instant.now().plus(offset.get());
  }

  void advance(Duration by) {
    offset.updateAndGet(o -> o.plus(by));
  }
}
