package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {
  private static final Duration INTERVAL = Duration.ofSeconds(10);

  private final Logger logger = (Logger) LoggerFactory.getLogger("rate-limited-log-test");
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final List<Runnable> scheduled = new ArrayList<>();
  private final List<Long> delays = new ArrayList<>();
  private long now = 1_000;
  private RateLimitedLog refusals;

  @BeforeEach
  void attach() {
    lines.start();
    logger.addAppender(lines);
    refusals =
        new RateLimitedLog(
            logger,
            "connections refused",
            INTERVAL,
            () -> now,
            (task, delay) -> {
              scheduled.add(task);
              delays.add(delay);
            });
  }

  @AfterEach
  void detach() {
    logger.detachAppender(lines);
  }

  private List<String> messages() {
    return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void the_first_event_is_logged_at_once() {
    refusals.record("from /10.0.0.1:1");

    assertThat(messages())
        .containsExactly(
            "connections refused: 1 since the last such line (at most one per 10s); latest: from"
                + " /10.0.0.1:1");
  }

  @Test
  void a_burst_within_the_interval_is_one_line_and_a_count_at_its_end() {
    for (int i = 1; i <= 1000; i++) {
      refusals.record("from /10.0.0.1:" + i);
      now += 1_000_000; // 1 ms apart: the whole burst fits in one interval
    }

    assertThat(messages()).hasSize(1);
    assertThat(scheduled).as("one flush for the whole burst").hasSize(1);
    assertThat(delays.get(0)).isPositive().isLessThanOrEqualTo(INTERVAL.toNanos());

    now += INTERVAL.toNanos();
    scheduled.get(0).run();

    assertThat(messages()).hasSize(2);
    assertThat(messages().get(1)).startsWith("connections refused: 999 since").endsWith(":1000");
  }

  @Test
  void an_event_after_the_interval_logs_with_the_count_since_the_last_line() {
    refusals.record("a");
    refusals.record("b");
    now += INTERVAL.toNanos();
    refusals.record("c");

    assertThat(messages()).hasSize(2);
    assertThat(messages().get(1)).startsWith("connections refused: 2 since").endsWith("latest: c");
    scheduled.forEach(Runnable::run);
    assertThat(messages()).as("the flush finds nothing left to report").hasSize(2);
  }
}
