package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The decision table of ACK, NACK, RELEASE and RENEW, row by row: every job state (and no job) x
 * the presented token matching or not x now before, at or after the lease's expiry.
 */
class LeaseVerdictTest {
  private static final long EXPIRES_AT = 1_000_000;
  private static final FencingToken HELD = token(1);
  private static final FencingToken OTHER = token(2);

  /** The state column of the table: a job state, or no job at all. */
  enum Row {
    NONE,
    READY,
    LEASED,
    DONE,
    DEAD,
    CANCELLED
  }

  /** The token column: the presented token is the one the row holds, or another. */
  enum Token {
    SAME,
    OTHER
  }

  /** The expiry column: now is before the lease's expiry, exactly at it, or after it. */
  enum Now {
    BEFORE,
    AT,
    AFTER
  }

  private static FencingToken token(int fill) {
    byte[] bytes = new byte[FencingToken.BYTES];
    Arrays.fill(bytes, (byte) fill);
    return FencingToken.fromBytes(bytes);
  }

  @ParameterizedTest(name = "{0} job, {1} token, now {2} expiry: {3}")
  @CsvSource({
    "NONE,      SAME,  BEFORE, UNKNOWN_JOB",
    "NONE,      SAME,  AT,     UNKNOWN_JOB",
    "NONE,      SAME,  AFTER,  UNKNOWN_JOB",
    "NONE,      OTHER, BEFORE, UNKNOWN_JOB",
    "NONE,      OTHER, AT,     UNKNOWN_JOB",
    "NONE,      OTHER, AFTER,  UNKNOWN_JOB",
    "READY,     SAME,  BEFORE, NOT_LEASED",
    "READY,     SAME,  AT,     NOT_LEASED",
    "READY,     SAME,  AFTER,  NOT_LEASED",
    "READY,     OTHER, BEFORE, NOT_LEASED",
    "READY,     OTHER, AT,     NOT_LEASED",
    "READY,     OTHER, AFTER,  NOT_LEASED",
    "LEASED,    SAME,  BEFORE, OK",
    "LEASED,    SAME,  AT,     LEASE_EXPIRED",
    "LEASED,    SAME,  AFTER,  LEASE_EXPIRED",
    "LEASED,    OTHER, BEFORE, STALE_TOKEN",
    "LEASED,    OTHER, AT,     STALE_TOKEN",
    "LEASED,    OTHER, AFTER,  STALE_TOKEN",
    "DONE,      SAME,  BEFORE, ALREADY_ACKED",
    "DONE,      SAME,  AT,     ALREADY_ACKED",
    "DONE,      SAME,  AFTER,  ALREADY_ACKED",
    "DONE,      OTHER, BEFORE, STALE_TOKEN",
    "DONE,      OTHER, AT,     STALE_TOKEN",
    "DONE,      OTHER, AFTER,  STALE_TOKEN",
    "DEAD,      SAME,  BEFORE, NOT_LEASED",
    "DEAD,      SAME,  AT,     NOT_LEASED",
    "DEAD,      SAME,  AFTER,  NOT_LEASED",
    "DEAD,      OTHER, BEFORE, NOT_LEASED",
    "DEAD,      OTHER, AT,     NOT_LEASED",
    "DEAD,      OTHER, AFTER,  NOT_LEASED",
    "CANCELLED, SAME,  BEFORE, NOT_LEASED",
    "CANCELLED, SAME,  AT,     NOT_LEASED",
    "CANCELLED, SAME,  AFTER,  NOT_LEASED",
    "CANCELLED, OTHER, BEFORE, NOT_LEASED",
    "CANCELLED, OTHER, AT,     NOT_LEASED",
    "CANCELLED, OTHER, AFTER,  NOT_LEASED"
  })
  void each_state_token_and_expiry_gets_the_outcome_of_its_row(
      Row state, Token token, Now now, Outcome expected) {
    LeaseRow row =
        state == Row.NONE
            ? null
            : new LeaseRow(
                "q", JobState.valueOf(state.name()), HELD.toBytes(), EXPIRES_AT, 1, 3, 0);
    FencingToken presented = token == Token.SAME ? HELD : OTHER;
    long nowMillis =
        switch (now) {
          case BEFORE -> EXPIRES_AT - 1;
          case AT -> EXPIRES_AT;
          case AFTER -> EXPIRES_AT + 1;
        };

    assertThat(LeaseVerdict.decide(row, presented, nowMillis)).isEqualTo(expected);
  }

  @Test
  void the_table_has_a_row_for_every_job_state() {
    for (JobState state : JobState.values()) {
      assertThat(Row.valueOf(state.name())).isNotNull();
    }
  }

  @Test
  void a_finished_job_that_holds_no_token_answers_stale_token() {
    LeaseRow done = new LeaseRow("q", JobState.DONE, null, 0, 1, 3, 0);

    assertThat(LeaseVerdict.decide(done, HELD, 0)).isEqualTo(Outcome.STALE_TOKEN);
  }

  @Test
  void a_leased_job_without_a_token_is_a_broken_invariant() {
    LeaseRow broken = new LeaseRow("q", JobState.LEASED, null, EXPIRES_AT, 1, 3, 0);

    assertThatThrownBy(() -> LeaseVerdict.decide(broken, HELD, 0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("leased job without a fencing token");
  }
}
