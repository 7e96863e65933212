package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The decision table of CANCEL and of DEAD_REQUEUE / DEAD_PURGE of one job, row by row: every job
 * state (and no job) and, for dead jobs, the queue the operator named.
 */
class AdminVerdictTest {
  /** The state column: a job state, or no job at all. */
  enum Row {
    NONE,
    READY,
    LEASED,
    DONE,
    DEAD,
    CANCELLED;

    JobState stateOrNull() {
      return this == NONE ? null : JobState.valueOf(name());
    }
  }

  @ParameterizedTest(name = "cancel of a {0} job: {1}")
  @CsvSource({
    "NONE,      UNKNOWN_JOB",
    "READY,     OK",
    "LEASED,    INVALID_STATE",
    "DONE,      INVALID_STATE",
    "DEAD,      INVALID_STATE",
    "CANCELLED, INVALID_STATE"
  })
  void cancel_applies_to_a_ready_job_only(Row state, Outcome expected) {
    assertThat(AdminVerdict.cancel(state.stateOrNull())).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} job in q, named ''{1}'': {2}")
  @CsvSource({
    "NONE,      '',    UNKNOWN_JOB",
    "NONE,      q,     UNKNOWN_JOB",
    "READY,     '',    INVALID_STATE",
    "READY,     q,     INVALID_STATE",
    "LEASED,    '',    INVALID_STATE",
    "LEASED,    q,     INVALID_STATE",
    "DONE,      '',    INVALID_STATE",
    "DONE,      q,     INVALID_STATE",
    "CANCELLED, '',    INVALID_STATE",
    "CANCELLED, q,     INVALID_STATE",
    "DEAD,      '',    OK",
    "DEAD,      q,     OK",
    "DEAD,      other, INVALID_STATE"
  })
  void a_dead_job_command_applies_to_a_dead_job_in_the_named_queue_or_any_queue(
      Row state, String named, Outcome expected) {
    String jobQueue = state == Row.NONE ? null : "q";

    assertThat(AdminVerdict.deadJob(state.stateOrNull(), jobQueue, named)).isEqualTo(expected);
  }
}
