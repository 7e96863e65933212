package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProtocolLimitsTest {

  @Test
  void the_limits_are_consistent_when_the_class_initializes() {
    assertThatCode(
            () ->
                Class.forName(
                    ProtocolLimits.class.getName(), true, ProtocolLimits.class.getClassLoader()))
        .doesNotThrowAnyException();
  }

  @Test
  void the_wire_limits_have_the_values_of_the_specification() {
    assertThat(ProtocolLimits.FRAME_BYTES_MAX).isEqualTo(1024 * 1024 + 64 * 1024);
    assertThat(ProtocolLimits.PAYLOAD_BYTES_MAX).isEqualTo(1024 * 1024);
    assertThat(ProtocolLimits.PROTOCOL_VERSION).isEqualTo(2);
  }

  @Test
  void a_receivers_frame_cap_must_lie_in_the_protocol_range() {
    assertThat(ProtocolLimits.requireFrameBytesMax("cap", ProtocolLimits.FRAME_BYTES_MIN))
        .isEqualTo(ProtocolLimits.FRAME_BYTES_MIN);
    assertThat(ProtocolLimits.requireFrameBytesMax("cap", ProtocolLimits.FRAME_BYTES_MAX))
        .isEqualTo(ProtocolLimits.FRAME_BYTES_MAX);
    assertThatThrownBy(() -> ProtocolLimits.requireFrameBytesMax("cap", 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cap must be in [16384, 1114112], was 100");
  }

  @Test
  void a_leased_frame_with_one_largest_payload_fits_in_a_frame() {
    int frame =
        ProtocolLimits.FRAME_HEADER_BYTES
            + Leased.encodedSize(
                LeasedJob.encodedSize(
                    ProtocolLimits.QUEUE_NAME_BYTES_MAX, ProtocolLimits.PAYLOAD_BYTES_MAX));

    assertThat(frame).isLessThanOrEqualTo(ProtocolLimits.FRAME_BYTES_MAX);
  }
}
