package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class HostPortTest {
  @Test
  void ipv4_and_bracketed_ipv6_addresses_parse() {
    InetSocketAddress v4 = HostPort.parse("127.0.0.1:7707");
    assertThat(v4.getPort()).isEqualTo(7707);
    assertThat(v4.getAddress().isLoopbackAddress()).isTrue();
    InetSocketAddress v6 = HostPort.parse("[::1]:0");
    assertThat(v6.getPort()).isZero();
    assertThat(HostPort.format(v6)).isEqualTo("[0:0:0:0:0:0:0:1]:0");
  }

  @Test
  void a_missing_or_out_of_range_port_is_rejected() {
    assertThatThrownBy(() -> HostPort.parse("127.0.0.1")).hasMessageContaining("is not an address");
    assertThatThrownBy(() -> HostPort.parse("127.0.0.1:65536"))
        .hasMessageContaining("must be in [0, 65535], was 65536");
    assertThatThrownBy(() -> HostPort.parse("127.0.0.1:http"))
        .hasMessageContaining("has no numeric port");
  }
}
