package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.JobSpecs;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * The jobs a run enqueues: job {@code i} (0 to {@code count - 1}) has the idempotency key {@code
 * job-i}, so a producer can repeat an enqueue whose answer a crash swallowed without doubling it.
 * Every {@code failEvery}-th job is meant to fail: its handler always throws, and its {@code
 * failAttempts} attempts end it dead; the others get {@code okAttempts}.
 */
record JobPlan(String queue, int count, int failEvery, int okAttempts, int failAttempts) {
  private static final String KEY_PREFIX = "job-";
  private static final String FAILING_PAYLOAD_PREFIX = "fail-";

  JobSpec spec(int i) {
    boolean failing = meantToFail(i);
    String payload = (failing ? FAILING_PAYLOAD_PREFIX : "ok-") + i;
    return JobSpecs.builder(queue, payload.getBytes(StandardCharsets.UTF_8))
        .idempotencyKey(KEY_PREFIX + i)
        .attemptsMax(failing ? failAttempts : okAttempts)
        .build();
  }

  boolean meantToFail(int i) {
    return i % failEvery == 0;
  }

  static boolean meantToFail(Job job) {
    return new String(job.payload(), StandardCharsets.UTF_8).startsWith(FAILING_PAYLOAD_PREFIX);
  }

  /** The plan's number of an inspected job, from its idempotency key. */
  static int indexOf(JobDetails job) {
    String key = job.idempotencyKey().orElseThrow();
    return Integer.parseInt(key.substring(KEY_PREFIX.length()));
  }

  /** Asserts one job per key for every key, each done, or dead when meant to fail. */
  void assertFinishedAsPlanned(Collection<JobDetails> jobs) {
    Set<Integer> indices = new HashSet<>();
    for (JobDetails job : jobs) {
      int index = indexOf(job);
      assertThat(indices.add(index)).as("one job per key, job-%d", index).isTrue();
      assertThat(job.state())
          .as("job %d (job-%d)", job.jobId(), index)
          .isEqualTo(meantToFail(index) ? JobState.DEAD : JobState.DONE);
    }
    assertThat(indices).hasSize(count);
  }
}
