package dev.relay.server;

import dev.relay.protocol.DurationText;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * One kind of repeated WARN (a refused connection, a bad frame before HELLO) logged at most once
 * per interval, with the number of events since the last line, so a flood of refusals costs a few
 * log lines instead of one per socket.
 *
 * <p>The first event logs at once. Events within the interval after a line are only counted; the
 * first event after the interval logs the count, and a flush scheduled at the end of the interval
 * logs a count left over when the flood stopped. Thread-safe: every event loop reports here.
 */
final class RateLimitedLog {
  /** Interval between two lines of one kind. */
  static final Duration INTERVAL_DEFAULT = Duration.ofSeconds(10);

  /** Runs a task once after a delay; the server uses a Netty executor, tests run it by hand. */
  interface Scheduler {
    void schedule(Runnable task, long delayNanos);
  }

  private final Logger log;
  private final String what;
  private final long intervalNanos;
  private final LongSupplier nanoTime;
  private final Scheduler scheduler;

  private long count;
  private String latest;
  private long nextLineNanos;
  private boolean logged;
  private boolean flushScheduled;

  /**
   * @param what names the events, the start of each line: "connections refused at connectionsMax"
   * @param nanoTime a monotonic clock, {@code System::nanoTime} outside tests
   */
  RateLimitedLog(
      Logger log, String what, Duration interval, LongSupplier nanoTime, Scheduler scheduler) {
    this.log = log;
    this.what = what;
    this.intervalNanos = interval.toNanos();
    this.nanoTime = nanoTime;
    this.scheduler = scheduler;
  }

  /** A log on the system clock whose flushes run on {@code executor}. */
  static RateLimitedLog of(
      Logger log, String what, io.netty.util.concurrent.EventExecutor executor) {
    return new RateLimitedLog(
        log,
        what,
        INTERVAL_DEFAULT,
        System::nanoTime,
        (task, delay) -> executor.schedule(task, delay, TimeUnit.NANOSECONDS));
  }

  /**
   * Counts one event; {@code detail} (server-made text: an address, a limit) describes the latest
   * one in the next line.
   */
  void record(String detail) {
    boolean scheduleFlush = false;
    synchronized (this) {
      count++;
      latest = detail;
      long now = nanoTime.getAsLong();
      if (!logged || now - nextLineNanos >= 0) {
        writeLine(now);
        return;
      }
      if (!flushScheduled) {
        flushScheduled = true;
        scheduleFlush = true;
      }
    }
    if (scheduleFlush) {
      scheduler.schedule(this::flush, Math.max(0, nextLineNanos - nanoTime.getAsLong()));
    }
  }

  /** Logs the events counted since the last line, if any; the scheduled flush calls this. */
  synchronized void flush() {
    flushScheduled = false;
    if (count > 0) {
      writeLine(nanoTime.getAsLong());
    }
  }

  private void writeLine(long now) {
    log.warn(
        "{}: {} since the last such line (at most one per {}); latest: {}",
        what,
        count,
        DurationText.format(Duration.ofNanos(intervalNanos)),
        latest);
    count = 0;
    logged = true;
    nextLineNanos = now + intervalNanos;
  }
}
