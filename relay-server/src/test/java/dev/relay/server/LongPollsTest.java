package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LongPollsTest {
  /** Records what the registry tells it. */
  static final class Recorder implements LongPolls.Waiter {
    int wakes;
    final List<Long> dueTimes = new ArrayList<>();

    @Override
    public void wake() {
      wakes++;
    }

    @Override
    public void dueAt(long epochMillis) {
      dueTimes.add(epochMillis);
    }
  }

  @Test
  void a_wake_between_the_store_call_and_parking_is_not_lost() {
    LongPolls polls = new LongPolls(10);
    LongPolls.Watch watch = polls.watch(List.of("q"));
    watch.capture();
    polls.wake(Set.of("q")); // the store reported a job after our empty lease, before parking
    Recorder waiter = new Recorder();
    assertThat(watch.park(waiter)).isFalse();
    polls.wake(Set.of("q"));
    assertThat(waiter.wakes).as("not left parked").isZero();
  }

  @Test
  void a_parked_poll_is_woken_by_its_queues_only() {
    LongPolls polls = new LongPolls(10);
    LongPolls.Watch watch = polls.watch(List.of("a", "b"));
    watch.capture();
    Recorder waiter = new Recorder();
    assertThat(watch.park(waiter)).isTrue();
    polls.wake(Set.of("c"));
    assertThat(waiter.wakes).isZero();
    polls.wake(Set.of("b"));
    assertThat(waiter.wakes).isEqualTo(1);
  }

  @Test
  void a_delayed_enqueue_reaches_parked_polls_and_makes_polls_in_flight_ask_again() {
    LongPolls polls = new LongPolls(10);
    LongPolls.Watch parked = polls.watch(List.of("q"));
    parked.capture();
    Recorder waiter = new Recorder();
    assertThat(parked.park(waiter)).isTrue();
    LongPolls.Watch asking = polls.watch(List.of("q"));
    asking.capture();
    polls.scheduled("q", 1234);
    assertThat(waiter.dueTimes).containsExactly(1234L);
    assertThat(asking.park(new Recorder())).isFalse();
  }

  @Test
  void entries_go_away_when_no_lease_watches_the_queue() {
    LongPolls polls = new LongPolls(10);
    LongPolls.Watch first = polls.watch(List.of("q"));
    LongPolls.Watch second = polls.watch(List.of("q", "r"));
    assertThat(polls.watchedQueues()).isEqualTo(2);
    first.end();
    assertThat(polls.watchedQueues()).isEqualTo(2);
    second.end();
    assertThat(polls.watchedQueues()).isZero();
  }

  @Test
  void slots_are_capped_at_parked_polls_max() {
    LongPolls polls = new LongPolls(2);
    assertThat(polls.tryReserveSlot()).isTrue();
    assertThat(polls.tryReserveSlot()).isTrue();
    assertThat(polls.tryReserveSlot()).isFalse();
    assertThat(polls.parked()).isEqualTo(2);
    polls.releaseSlot();
    assertThat(polls.tryReserveSlot()).isTrue();
  }
}
