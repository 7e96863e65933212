package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Header;
import dev.relay.protocol.JobInfo;
import dev.relay.protocol.JobState;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

final class JobDetailsTest {
  private static JobInfo info(JobState state, long leaseExpiresAtMillis, long finishedAtMillis) {
    return new JobInfo(
        7,
        "emails",
        state,
        1,
        2,
        5,
        2,
        0,
        1,
        1_700_000_000_000L,
        1_700_000_001_000L,
        leaseExpiresAtMillis,
        finishedAtMillis,
        12,
        Optional.of("boom"),
        Optional.empty(),
        Optional.of("key-7"),
        "email.send",
        List.of(new Header("traceparent", "00-x"), new Header("tenant", "acme")));
  }

  @Test
  void times_that_do_not_apply_are_empty_rather_than_the_wire_sentinel() {
    JobDetails ready = JobDetails.of(info(JobState.READY, JobInfo.TIME_NONE, JobInfo.TIME_NONE));

    assertThat(ready.enqueuedAt()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
    assertThat(ready.availableAt()).isEqualTo(Instant.ofEpochMilli(1_700_000_001_000L));
    assertThat(ready.leaseExpiresAt()).isEmpty();
    assertThat(ready.finishedAt()).isEmpty();
  }

  @Test
  void times_that_apply_are_instants() {
    JobDetails leased = JobDetails.of(info(JobState.LEASED, 1_700_000_030_000L, JobInfo.TIME_NONE));
    JobDetails done = JobDetails.of(info(JobState.DONE, JobInfo.TIME_NONE, 1_700_000_040_000L));

    assertThat(leased.leaseExpiresAt()).hasValue(Instant.ofEpochMilli(1_700_000_030_000L));
    assertThat(done.finishedAt()).hasValue(Instant.ofEpochMilli(1_700_000_040_000L));
  }

  @Test
  void headers_keep_their_order_and_every_other_field_passes_through() {
    JobDetails job = JobDetails.of(info(JobState.READY, JobInfo.TIME_NONE, JobInfo.TIME_NONE));

    assertThat(job.headers().entrySet())
        .containsExactly(Map.entry("traceparent", "00-x"), Map.entry("tenant", "acme"));
    assertThat(job.type()).isEqualTo("email.send");
    assertThat(job.lastError()).hasValue("boom");
    assertThat(job.idempotencyKey()).hasValue("key-7");
    assertThat(job.attempts()).isEqualTo(2);
    assertThat(job).isEqualTo(JobDetails.of(info(JobState.READY, -1, -1)));
  }
}
