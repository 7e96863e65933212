package dev.relay.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thread CPU clocks a test moves: one for whichever thread asks for its own ({@link #current}), one
 * for the sampler's timer thread ({@link #timer}, -1 once {@link #timerEnded}).
 */
final class FakeThreadCpu implements RssSampler.ThreadCpu {
  final AtomicLong current = new AtomicLong();
  final AtomicLong timer = new AtomicLong();
  final List<Long> threadsAsked = new ArrayList<>();
  volatile boolean timerEnded;

  @Override
  public long currentNanos() {
    return current.get();
  }

  @Override
  public synchronized long nanosOf(long threadId) {
    threadsAsked.add(threadId);
    return timerEnded ? -1 : timer.get();
  }
}
