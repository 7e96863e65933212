package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** On an EmbeddedChannel with its clock frozen: time moves only when the test says so. */
class DelayedAnswerTest {
  final List<String> happened = new ArrayList<>();
  final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
  // Kept: a closed EmbeddedChannel empties its pipeline.
  final ChannelHandlerContext ctx = channel.pipeline().firstContext();

  DelayedAnswerTest() {
    channel.freezeTime();
  }

  private void schedule(Duration delay) {
    DelayedAnswer.schedule(ctx, delay, () -> happened.add("answer"), () -> happened.add("drop"));
  }

  private void advance(long millis) {
    channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
  }

  @Test
  void the_answer_comes_after_the_delay_and_not_before() {
    schedule(Duration.ofSeconds(1));
    advance(999);
    assertThat(happened).isEmpty();
    advance(1);
    assertThat(happened).containsExactly("answer");
    channel.close();
    assertThat(happened).as("a close after the answer drops nothing").containsExactly("answer");
  }

  @Test
  void a_close_before_the_delay_drops_the_answer_and_its_timer() {
    schedule(Duration.ofSeconds(1));
    channel.close();
    assertThat(happened).containsExactly("drop");
    advance(2000);
    assertThat(happened).containsExactly("drop");
    assertThat(channel.hasPendingTasks()).isFalse();
  }

  @Test
  void a_closed_connection_drops_at_once_and_a_zero_delay_answers_at_once() {
    schedule(Duration.ZERO);
    assertThat(happened).containsExactly("answer");
    channel.close();
    schedule(Duration.ofSeconds(1));
    assertThat(happened).containsExactly("answer", "drop");
  }
}
