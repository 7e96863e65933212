package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.ProtocolLimits;
import java.time.Duration;
import org.junit.jupiter.api.Test;

final class ClientOptionsTest {
  @Test
  void defaults_are_the_documented_constants() {
    ClientOptions options = ClientOptions.builder("127.0.0.1", 7707).build();

    assertThat(options.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(options.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(options.pendingRequestsMax()).isEqualTo(1024);
    assertThat(options.reconnectBackoffMin()).isEqualTo(Duration.ofMillis(100));
    assertThat(options.reconnectBackoffMax()).isEqualTo(Duration.ofSeconds(5));
    assertThat(options.frameBytesMax()).isEqualTo(ProtocolLimits.FRAME_BYTES_MAX);
    assertThat(options.authToken()).isEmpty();
    assertThat(options.tlsTrustFile()).isEmpty();
  }

  @Test
  void limits_are_accepted_at_both_ends_of_their_range() {
    ClientOptions low =
        ClientOptions.builder("h", ClientOptions.PORT_MIN)
            .pendingRequestsMax(ClientOptions.PENDING_REQUESTS_MIN)
            .requestTimeout(ClientOptions.REQUEST_TIMEOUT_MIN)
            .connectTimeout(ClientOptions.CONNECT_TIMEOUT_MIN)
            .reconnectBackoff(
                ClientOptions.RECONNECT_BACKOFF_FLOOR, ClientOptions.RECONNECT_BACKOFF_FLOOR)
            .frameBytesMax(ProtocolLimits.FRAME_BYTES_MIN)
            .build();
    ClientOptions high =
        ClientOptions.builder("h", ClientOptions.PORT_MAX)
            .pendingRequestsMax(ClientOptions.PENDING_REQUESTS_MAX)
            .requestTimeout(ClientOptions.REQUEST_TIMEOUT_MAX)
            .connectTimeout(ClientOptions.CONNECT_TIMEOUT_MAX)
            .reconnectBackoff(
                ClientOptions.RECONNECT_BACKOFF_CEILING, ClientOptions.RECONNECT_BACKOFF_CEILING)
            .frameBytesMax(ProtocolLimits.FRAME_BYTES_MAX)
            .build();

    assertThat(low.pendingRequestsMax()).isEqualTo(1);
    assertThat(high.pendingRequestsMax()).isEqualTo(65_536);
  }

  @Test
  void out_of_range_values_are_rejected_naming_field_range_and_value() {
    assertThatThrownBy(
            () -> ClientOptions.builder("h", 1).requestTimeout(Duration.ofMillis(99)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("requestTimeout must be in [100ms, 1h], was 99ms");
    assertThatThrownBy(() -> ClientOptions.builder("h", 1).pendingRequestsMax(0).build())
        .hasMessage("pendingRequestsMax must be in [1, 65536], was 0");
    assertThatThrownBy(() -> ClientOptions.builder("h", 1).pendingRequestsMax(65_537).build())
        .hasMessage("pendingRequestsMax must be in [1, 65536], was 65537");
    assertThatThrownBy(() -> ClientOptions.builder("h", 0).build())
        .hasMessage("port must be in [1, 65535], was 0");
    assertThatThrownBy(
            () ->
                ClientOptions.builder("h", 1)
                    .reconnectBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1))
                    .build())
        .hasMessage("reconnectBackoffMax must be in [2s, 10m], was 1s");
    assertThatThrownBy(
            () ->
                ClientOptions.builder("h", 1)
                    .frameBytesMax(ProtocolLimits.FRAME_BYTES_MAX + 1)
                    .build())
        .hasMessageStartingWith("frameBytesMax must be in [");
  }

  @Test
  void to_string_never_shows_the_auth_token() {
    ClientOptions options = ClientOptions.builder("h", 1).authToken("s3cret-token").build();

    assertThat(options.toString()).doesNotContain("s3cret-token").contains("<redacted>");
  }
}
