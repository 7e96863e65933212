package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/**
 * {@link LoopHandoff}: inside a batch, tasks for one loop are held back and handed over as one task
 * when the batch ends; outside, each goes at once. The "loops" here are executors that record what
 * they are given and run it when the test says, so every hand-over is counted exactly.
 */
class LoopHandoffTest {
  /** Records every task handed to it; {@link #runAll} runs them, as a loop would later. */
  static final class RecordingLoop implements Executor {
    final List<Runnable> given = new ArrayList<>();

    @Override
    public void execute(Runnable task) {
      given.add(task);
    }

    void runAll() {
      List<Runnable> tasks = List.copyOf(given);
      given.clear();
      tasks.forEach(Runnable::run);
    }
  }

  final RecordingLoop loopA = new RecordingLoop();
  final RecordingLoop loopB = new RecordingLoop();
  final List<String> ran = new ArrayList<>();

  @Test
  void outside_a_batch_every_task_is_handed_over_at_once() {
    Executor toA = LoopHandoff.to(loopA);
    toA.execute(() -> ran.add("1"));
    toA.execute(() -> ran.add("2"));

    assertThat(loopA.given).hasSize(2);
    loopA.runAll();
    assertThat(ran).containsExactly("1", "2");
  }

  @Test
  void a_batch_hands_each_loop_its_tasks_as_one_task_in_order_when_it_ends() {
    Executor toA = LoopHandoff.to(loopA);
    Executor toB = LoopHandoff.to(loopB);
    LoopHandoff.batch(
        () -> {
          toA.execute(() -> ran.add("a1"));
          toB.execute(() -> ran.add("b1"));
          toA.execute(() -> ran.add("a2"));
          assertThat(loopA.given).isEmpty();
          assertThat(loopB.given).isEmpty();
        });

    assertThat(loopA.given).hasSize(1);
    assertThat(loopB.given).hasSize(1);
    loopA.runAll();
    assertThat(ran).containsExactly("a1", "a2");
    loopB.runAll();
    assertThat(ran).containsExactly("a1", "a2", "b1");
  }

  @Test
  void the_loops_are_handed_their_tasks_in_the_order_they_were_first_given_one() {
    List<String> handedOver = new ArrayList<>();
    Executor toA = LoopHandoff.to(task -> handedOver.add("A"));
    Executor toB = LoopHandoff.to(task -> handedOver.add("B"));
    Executor toC = LoopHandoff.to(task -> handedOver.add("C"));
    LoopHandoff.batch(
        () -> {
          toC.execute(() -> {});
          toA.execute(() -> {});
          toC.execute(() -> {});
          toB.execute(() -> {});
        });

    assertThat(handedOver).containsExactly("C", "A", "B");
  }

  @Test
  void a_nested_batch_joins_the_outer_one() {
    Executor toA = LoopHandoff.to(loopA);
    LoopHandoff.batch(
        () -> {
          toA.execute(() -> ran.add("outer"));
          LoopHandoff.batch(() -> toA.execute(() -> ran.add("inner")));
          assertThat(loopA.given).isEmpty();
        });

    assertThat(loopA.given).hasSize(1);
    loopA.runAll();
    assertThat(ran).containsExactly("outer", "inner");
  }

  @Test
  void a_failing_task_does_not_keep_the_rest_of_its_batch_from_running() {
    Executor toA = LoopHandoff.to(loopA);
    LoopHandoff.batch(
        () -> {
          toA.execute(() -> ran.add("before"));
          toA.execute(
              () -> {
                throw new IllegalStateException("a reply that fails");
              });
          toA.execute(() -> ran.add("after"));
        });

    loopA.runAll();
    assertThat(ran).containsExactly("before", "after");
  }

  @Test
  void the_tasks_collected_before_the_batch_body_throws_are_still_handed_over() {
    Executor toA = LoopHandoff.to(loopA);
    try {
      LoopHandoff.batch(
          () -> {
            toA.execute(() -> ran.add("answered"));
            throw new IllegalStateException("the rest of the publish failed");
          });
    } catch (IllegalStateException expected) {
      // the caller sees the failure; the reply already collected still goes out
    }

    loopA.runAll();
    assertThat(ran).containsExactly("answered");
    toA.execute(() -> ran.add("later"));
    assertThat(loopA.given).as("the batch is closed: later tasks go at once").hasSize(1);
  }

  @Test
  void a_loop_that_refuses_its_batch_does_not_stop_the_others_or_the_caller() {
    Executor stopped =
        LoopHandoff.to(
            task -> {
              throw new RejectedExecutionException("event loop shut down");
            });
    Executor toA = LoopHandoff.to(loopA);
    LoopHandoff.batch(
        () -> {
          stopped.execute(() -> ran.add("lost"));
          toA.execute(() -> ran.add("delivered"));
        });

    loopA.runAll();
    assertThat(ran).containsExactly("delivered");
  }
}
