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
  private static final String OK_PAYLOAD_PREFIX = "ok-";

  /** Over the 512 bytes SQLite keeps in a job's row (schema version 4). */
  private static final int LARGE_PAYLOAD_BYTES = 2_000;

  JobSpec spec(int i) {
    boolean failing = meantToFail(i);
    return JobSpecs.builder(queue, payload(failing ? FAILING_PAYLOAD_PREFIX : OK_PAYLOAD_PREFIX, i))
        .idempotencyKey(KEY_PREFIX + i)
        .attemptsMax(failing ? failAttempts : okAttempts)
        .build();
  }

  boolean meantToFail(int i) {
    return i % failEvery == 0;
  }

  /**
   * Whether {@code job} is meant to fail, read from its payload; first asserts the payload is byte
   * for byte what the plan enqueued, so a run fails (its worker throws) if a crash damaged one.
   */
  static boolean meantToFail(Job job) {
    String text = new String(job.payload(), StandardCharsets.UTF_8);
    boolean failing = text.startsWith(FAILING_PAYLOAD_PREFIX);
    String prefix = failing ? FAILING_PAYLOAD_PREFIX : OK_PAYLOAD_PREFIX;
    int end = text.indexOf(';');
    assertThat(text).as("payload of job %d", job.id()).startsWith(prefix);
    assertThat(end).as("payload of job %d", job.id()).isPositive();
    int index = Integer.parseInt(text.substring(prefix.length(), end));
    assertThat(job.payload())
        .as("payload of job %d (job-%d)", job.id(), index)
        .isEqualTo(payload(prefix, index));
    return failing;
  }

  /**
   * Job {@code i}'s payload: its prefix and number, and for every odd {@code i} padding to {@value
   * #LARGE_PAYLOAD_BYTES} bytes, so a run stores payloads both in the job's row and, on SQLite, in
   * the table of large payloads.
   */
  private static byte[] payload(String prefix, int i) {
    String head = prefix + i + ";";
    String text = i % 2 == 1 ? head + "x".repeat(LARGE_PAYLOAD_BYTES - head.length()) : head;
    return text.getBytes(StandardCharsets.UTF_8);
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
