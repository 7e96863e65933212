package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.ProtocolLimits;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ServerLimitsTest {
  @Test
  void defaults_are_the_documented_values() {
    ServerLimits limits = ServerLimits.defaults();
    assertThat(limits.connectionsMax()).isEqualTo(1024);
    assertThat(limits.inFlightRequestsMax()).isEqualTo(128);
    assertThat(limits.payloadBytesMax()).isEqualTo(1024 * 1024);
    assertThat(limits.jobsPerLeaseMax()).isEqualTo(256);
    assertThat(limits.parkedPollsMax()).isEqualTo(10_000);
    assertThat(limits.handshakeTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(limits.authFailureDelay()).isEqualTo(Duration.ofSeconds(1));
    assertThat(limits.idleTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(limits.frameReadTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(limits.waitMax()).isEqualTo(Duration.ofSeconds(60));
    assertThat(limits.ioThreads())
        .isEqualTo(Math.max(1, Runtime.getRuntime().availableProcessors() - 1));
  }

  @Test
  void io_threads_bounds_are_accepted_and_one_past_is_rejected() {
    assertThat(ServerLimits.builder().ioThreads(1).build().ioThreads()).isEqualTo(1);
    assertThat(ServerLimits.builder().ioThreads(256).build().ioThreads()).isEqualTo(256);
    assertThatThrownBy(() -> ServerLimits.builder().ioThreads(0).build())
        .hasMessage("ioThreads must be in [1, 256], was 0");
    assertThatThrownBy(() -> ServerLimits.builder().ioThreads(257).build())
        .hasMessage("ioThreads must be in [1, 256], was 257");
  }

  @Test
  void connections_max_bounds_are_accepted_and_one_past_is_rejected() {
    assertThat(ServerLimits.builder().connectionsMax(1).build().connectionsMax()).isEqualTo(1);
    assertThat(ServerLimits.builder().connectionsMax(100_000).build().connectionsMax())
        .isEqualTo(100_000);
    assertThatThrownBy(() -> ServerLimits.builder().connectionsMax(0).build())
        .hasMessage("connectionsMax must be in [1, 100000], was 0");
    assertThatThrownBy(() -> ServerLimits.builder().connectionsMax(100_001).build())
        .hasMessage("connectionsMax must be in [1, 100000], was 100001");
  }

  @Test
  void durations_out_of_range_are_rejected_in_flag_syntax() {
    assertThatThrownBy(() -> ServerLimits.builder().handshakeTimeout(Duration.ofMillis(49)).build())
        .hasMessage("handshakeTimeout must be in [50ms, 5m], was 49ms");
    assertThat(
            ServerLimits.builder()
                .handshakeTimeout(Duration.ofMillis(50))
                .build()
                .handshakeTimeout())
        .isEqualTo(Duration.ofMillis(50));
    assertThat(ServerLimits.builder().authFailureDelay(Duration.ZERO).build().authFailureDelay())
        .isZero();
    assertThatThrownBy(
            () -> ServerLimits.builder().authFailureDelay(Duration.ofSeconds(61)).build())
        .hasMessage("authFailureDelay must be in [0ms, 1m], was 61s");
  }

  @Test
  void idle_timeout_must_exceed_the_longest_wait() {
    assertThatThrownBy(
            () ->
                ServerLimits.builder()
                    .waitMax(Duration.ofSeconds(60))
                    .idleTimeout(Duration.ofSeconds(60))
                    .build())
        .hasMessage("idleTimeout must exceed waitMax (1m), was 1m");
    assertThat(
            ServerLimits.builder()
                .waitMax(Duration.ofSeconds(60))
                .idleTimeout(Duration.ofMillis(60_001))
                .build()
                .idleTimeout())
        .isEqualTo(Duration.ofMillis(60_001));
  }

  @Test
  void frame_cap_must_leave_room_for_a_maximal_payload() {
    int payload = 100_000;
    ServerLimits fits =
        ServerLimits.builder()
            .payloadBytesMax(payload)
            .frameBytesMax(payload + ServerLimits.FRAME_OVERHEAD_BYTES)
            .build();
    assertThat(fits.frameBytesMax()).isEqualTo(payload + ServerLimits.FRAME_OVERHEAD_BYTES);
    assertThatThrownBy(
            () ->
                ServerLimits.builder()
                    .payloadBytesMax(payload)
                    .frameBytesMax(payload + ServerLimits.FRAME_OVERHEAD_BYTES - 1)
                    .build())
        .hasMessageStartingWith("frameBytesMax must be at least payloadBytesMax + ");
  }

  @Test
  void frame_cap_lower_bound_is_the_wire_frame_bytes_min() {
    int payload = 1;
    ServerLimits atBound =
        ServerLimits.builder()
            .payloadBytesMax(payload)
            .frameBytesMax(ProtocolLimits.FRAME_BYTES_MIN)
            .build();
    assertThat(atBound.frameBytesMax()).isEqualTo(16_384);
    assertThat(ServerLimits.FRAME_BYTES_MAX_MIN).isEqualTo(ProtocolLimits.FRAME_BYTES_MIN);
    assertThatThrownBy(
            () ->
                ServerLimits.builder()
                    .payloadBytesMax(payload)
                    .frameBytesMax(ProtocolLimits.FRAME_BYTES_MIN - 1)
                    .build())
        .hasMessage("frameBytesMax must be in [16384, 1114112], was 16383");
  }

  @Test
  void write_buffer_high_mark_must_exceed_the_low_mark() {
    assertThatThrownBy(
            () ->
                ServerLimits.builder()
                    .writeBufferLowBytes(64 * 1024)
                    .writeBufferHighBytes(64 * 1024)
                    .build())
        .hasMessage("writeBufferHighBytes must exceed writeBufferLowBytes (65536), was 65536");
  }

  @Test
  void to_builder_copies_every_value() {
    ServerLimits limits =
        ServerLimits.builder().parkedPollsMax(7).jobsPerLeaseMax(3).ioThreads(5).build();
    assertThat(limits.toBuilder().build()).isEqualTo(limits);
  }
}
