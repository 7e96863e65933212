package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class PrincipalTest {
  @Test
  void an_admin_may_send_every_request() {
    assertThat(Arrays.stream(Opcode.values()).filter(Opcode::isRequest))
        .allMatch(Principal.ADMIN::may);
  }

  @Test
  void a_worker_may_send_everything_but_the_admin_requests() {
    EnumSet<Opcode> workerMay = EnumSet.noneOf(Opcode.class);
    for (Opcode o : Opcode.values()) {
      if (o.isRequest() && Principal.WORKER.may(o)) {
        workerMay.add(o);
      }
    }
    assertThat(workerMay)
        .containsExactlyInAnyOrder(
            Opcode.HELLO,
            Opcode.ENQUEUE,
            Opcode.ENQUEUE_BATCH,
            Opcode.LEASE,
            Opcode.ACK,
            Opcode.NACK,
            Opcode.RELEASE,
            Opcode.RENEW,
            Opcode.STATS,
            Opcode.INSPECT,
            Opcode.DEAD_LIST,
            Opcode.JOBS_LIST,
            Opcode.INSPECT_PAYLOAD);
    assertThat(Principal.ADMIN_ONLY)
        .containsExactlyInAnyOrder(
            Opcode.BACKUP,
            Opcode.PAUSE,
            Opcode.RESUME,
            Opcode.CANCEL,
            Opcode.DEAD_REQUEUE,
            Opcode.DELETE_QUEUE,
            Opcode.DEAD_PURGE);
  }

  @Test
  void wire_codes_round_trip_and_unknown_codes_are_empty() {
    for (Principal p : Principal.values()) {
      assertThat(Principal.fromCode(p.code())).hasValue(p);
    }
    assertThat(Principal.fromCode(0)).isEmpty();
    assertThat(Principal.fromCode(3)).isEmpty();
  }
}
