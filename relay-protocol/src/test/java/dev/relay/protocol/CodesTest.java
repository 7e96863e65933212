package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CodesTest {

  @Test
  void error_codes_are_numbered_from_one_without_gaps_and_decode_back() {
    for (ErrorCode code : ErrorCode.values()) {
      assertThat(code.code()).isEqualTo(code.ordinal() + 1);
      assertThat(ErrorCode.fromCode(code.code())).hasValue(code);
    }
    assertThat(ErrorCode.fromCode(0)).isEmpty();
    assertThat(ErrorCode.fromCode(ErrorCode.values().length + 1)).isEmpty();
    assertThat(ErrorCode.fromCode(0xFFFF)).isEmpty();
  }

  @Test
  void exactly_the_documented_errors_close_the_connection() {
    Set<ErrorCode> closing = EnumSet.noneOf(ErrorCode.class);
    for (ErrorCode code : ErrorCode.values()) {
      if (code.closesConnection()) {
        closing.add(code);
      }
    }

    assertThat(closing)
        .containsExactlyInAnyOrder(
            ErrorCode.MALFORMED_FRAME,
            ErrorCode.FRAME_TOO_LARGE,
            ErrorCode.UNKNOWN_OPCODE,
            ErrorCode.UNSUPPORTED_VERSION,
            ErrorCode.HANDSHAKE_REQUIRED,
            ErrorCode.UNAUTHORIZED,
            ErrorCode.TOO_MANY_CONNECTIONS);
  }

  @Test
  void exactly_the_documented_errors_are_retryable_by_default() {
    Set<ErrorCode> retryable = EnumSet.noneOf(ErrorCode.class);
    for (ErrorCode code : ErrorCode.values()) {
      if (code.retryable()) {
        retryable.add(code);
      }
    }

    assertThat(retryable)
        .containsExactlyInAnyOrder(
            ErrorCode.TOO_MANY_CONNECTIONS,
            ErrorCode.OVERLOADED,
            ErrorCode.QUEUE_FULL,
            ErrorCode.STORE_UNAVAILABLE,
            ErrorCode.SHUTTING_DOWN,
            ErrorCode.INTERNAL,
            ErrorCode.TIMED_OUT,
            ErrorCode.CONNECTION_LOST);
  }

  @Test
  void request_opcodes_are_below_0x40_and_response_opcodes_have_the_high_bit() {
    for (Opcode opcode : Opcode.values()) {
      assertThat(Opcode.fromCode(opcode.code())).hasValue(opcode);
      if (opcode.isRequest()) {
        assertThat(opcode.code()).isBetween(0x01, 0x3F);
      } else {
        assertThat(opcode.code()).isBetween(0x80, 0xFF);
      }
    }
    assertThat(Opcode.fromCode(0x00)).isEmpty();
    assertThat(Opcode.fromCode(0x85)).isEmpty();
    assertThat(Opcode.fromCode(0x100)).isEmpty();
  }

  @Test
  void a_response_that_answers_one_request_kind_is_that_opcode_with_the_high_bit() {
    assertThat(Opcode.WELCOME.code()).isEqualTo(Opcode.HELLO.code() | 0x80);
    assertThat(Opcode.ENQUEUED.code()).isEqualTo(Opcode.ENQUEUE.code() | 0x80);
    assertThat(Opcode.ENQUEUED_BATCH.code()).isEqualTo(Opcode.ENQUEUE_BATCH.code() | 0x80);
    assertThat(Opcode.LEASED.code()).isEqualTo(Opcode.LEASE.code() | 0x80);
    assertThat(Opcode.RENEWED.code()).isEqualTo(Opcode.RENEW.code() | 0x80);
    assertThat(Opcode.STATS_RESULT.code()).isEqualTo(Opcode.STATS.code() | 0x80);
    assertThat(Opcode.JOB_INFO.code()).isEqualTo(Opcode.INSPECT.code() | 0x80);
    assertThat(Opcode.DEAD_JOBS.code()).isEqualTo(Opcode.DEAD_LIST.code() | 0x80);
    assertThat(Opcode.REQUEUED.code()).isEqualTo(Opcode.DEAD_REQUEUE.code() | 0x80);
    assertThat(Opcode.BACKED_UP.code()).isEqualTo(Opcode.BACKUP.code() | 0x80);
    assertThat(Opcode.PURGED.code()).isEqualTo(Opcode.DEAD_PURGE.code() | 0x80);
    assertThat(Opcode.JOBS.code()).isEqualTo(Opcode.JOBS_LIST.code() | 0x80);
    assertThat(Opcode.PAYLOAD.code()).isEqualTo(Opcode.INSPECT_PAYLOAD.code() | 0x80);
  }

  @Test
  void schedule_kinds_and_job_states_decode_back_and_reject_unknown_values() {
    for (ScheduleKind kind : ScheduleKind.values()) {
      assertThat(ScheduleKind.fromCode(kind.code())).hasValue(kind);
    }
    for (JobState state : JobState.values()) {
      assertThat(JobState.fromCode(state.code())).hasValue(state);
    }
    assertThat(ScheduleKind.fromCode(3)).isEmpty();
    assertThat(JobState.fromCode(5)).isEmpty();
  }

  @Test
  void state_filters_and_list_orders_decode_back_and_reject_unknown_values() {
    for (StateFilter filter : StateFilter.values()) {
      assertThat(StateFilter.fromCode(filter.code())).hasValue(filter);
    }
    for (ListOrder order : ListOrder.values()) {
      assertThat(ListOrder.fromCode(order.code())).hasValue(order);
    }
    assertThat(StateFilter.fromCode(6)).isEmpty();
    assertThat(ListOrder.fromCode(2)).isEmpty();
  }
}
