package dev.relay.server.store;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test moves it; millisecond resolution like the store. */
final class TestClock implements InstantSource {
  static final Instant START = Instant.parse("2030-01-01T00:00:00Z");

  private final AtomicLong millis = new AtomicLong(START.toEpochMilli());

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public long millis() {
    return millis.get();
  }

  void advance(Duration d) {
    millis.addAndGet(d.toMillis());
  }

  void advanceMillis(long ms) {
    millis.addAndGet(ms);
  }

  void set(Instant instant) {
    millis.set(instant.toEpochMilli());
  }
}
