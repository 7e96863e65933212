package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NamesTest {
  @Test
  void a_queue_name_of_the_wire_maximum_is_accepted_and_one_byte_more_is_not() {
    String longest = "q".repeat(ProtocolLimits.QUEUE_NAME_BYTES_MAX);
    assertThat(Names.queue("queue", longest)).isEqualTo(longest);
    assertThatThrownBy(() -> Names.queue("queue", longest + "q"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("queue must be 1..128 bytes of UTF-8, was 129");
  }

  @Test
  void a_queue_name_outside_the_wire_alphabet_is_refused_as_on_the_wire() {
    assertThatThrownBy(() -> Names.queue("queue", "a b"))
        .hasMessage("queue may hold only [A-Za-z0-9._-], was \"a b\"");
    assertThatThrownBy(() -> Names.queue("queue", "caf\u00e9"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Names.queue("queue", "")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void a_job_type_may_be_empty_hold_a_colon_and_reach_the_wire_maximum() {
    assertThat(Names.jobType("type", "")).isEmpty();
    assertThat(Names.jobType("type", "mail:send")).isEqualTo("mail:send");
    String longest = "t".repeat(ProtocolLimits.JOB_TYPE_BYTES_MAX);
    assertThat(Names.jobType("type", longest)).isEqualTo(longest);
    assertThatThrownBy(() -> Names.jobType("type", longest + "t"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Names.jobType("type", "a/b"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
