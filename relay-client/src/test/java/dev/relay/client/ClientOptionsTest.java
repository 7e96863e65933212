package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.ProtocolLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

  @Test
  void one_host_and_port_is_a_list_of_one_address() {
    ClientOptions options = ClientOptions.builder("10.0.0.5", 7707).build();

    assertThat(options.addresses()).containsExactly(new ServerAddress("10.0.0.5", 7707));
    assertThat(options.host()).isEqualTo("10.0.0.5");
    assertThat(options.port()).isEqualTo(7707);
  }

  @Test
  void an_address_list_is_accepted_from_one_to_addresses_max() {
    List<ServerAddress> most = new ArrayList<>();
    for (int i = 0; i < ClientOptions.ADDRESSES_MAX; i++) {
      most.add(new ServerAddress("node-" + i, 7707));
    }

    assertThat(ClientOptions.builder(most.subList(0, 1)).build().addresses()).hasSize(1);
    assertThat(ClientOptions.builder(most).build().addresses()).isEqualTo(most);
  }

  @Test
  void an_empty_too_long_or_repeating_address_list_is_rejected() {
    List<ServerAddress> tooMany = new ArrayList<>();
    for (int i = 0; i <= ClientOptions.ADDRESSES_MAX; i++) {
      tooMany.add(new ServerAddress("node-" + i, 7707));
    }
    ServerAddress a = new ServerAddress("a", 1);

    assertThatThrownBy(() -> ClientOptions.builder(List.of()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("addresses must be in [1, 32], was 0");
    assertThatThrownBy(() -> ClientOptions.builder(tooMany).build())
        .hasMessage("addresses must be in [1, 32], was 33");
    assertThatThrownBy(
            () -> ClientOptions.builder(List.of(a, new ServerAddress("b", 2), a)).build())
        .hasMessage("addresses must be distinct, were [a:1, b:2, a:1]");
  }

  @Test
  void every_address_has_a_host_and_a_port_in_range() {
    assertThatThrownBy(() -> new ServerAddress("h", ClientOptions.PORT_MAX + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("port must be in [1, 65535], was 65536");
    assertThatThrownBy(() -> new ServerAddress(" ", 1)).hasMessage("host must not be blank");
    assertThat(new ServerAddress("h", ClientOptions.PORT_MIN).port()).isEqualTo(1);
  }

  @Test
  void addresses_parse_from_host_port_text_one_or_a_comma_separated_list() {
    assertThat(ServerAddress.parse("10.0.0.5:7707")).isEqualTo(new ServerAddress("10.0.0.5", 7707));
    assertThat(ServerAddress.parseList("a:1, b:2,c:3"))
        .containsExactly(
            new ServerAddress("a", 1), new ServerAddress("b", 2), new ServerAddress("c", 3));
    assertThat(ServerAddress.parse("a:1").toString()).isEqualTo("a:1");
    assertThatThrownBy(() -> ServerAddress.parse("localhost"))
        .hasMessage("server address must be HOST:PORT, was 'localhost'");
    assertThatThrownBy(() -> ServerAddress.parse("a:b"))
        .hasMessage("server address port must be a number, was 'a:b'");
    assertThatThrownBy(() -> ServerAddress.parseList("a:1,"))
        .hasMessage("server address must be HOST:PORT, was ''");
  }

  @Test
  void to_string_names_every_address() {
    ClientOptions options =
        ClientOptions.builder(List.of(new ServerAddress("a", 1), new ServerAddress("b", 2)))
            .build();

    assertThat(options.toString()).startsWith("ClientOptions[addresses=[a:1, b:2], ");
  }
}
