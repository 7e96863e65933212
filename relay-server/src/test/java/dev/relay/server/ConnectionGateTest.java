package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.server.ConnectionGate.Admission;
import dev.relay.server.ConnectionGate.Verdict;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConnectionGateTest {
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  private Channel channel() {
    EmbeddedChannel c = new EmbeddedChannel();
    channels.add(c);
    return c;
  }

  @AfterEach
  void close() {
    channels.forEach(EmbeddedChannel::finishAndReleaseAll);
  }

  private static ConnectionGate gate(int connections, int handshakes, int perAddress) {
    return new ConnectionGate(
        ServerLimits.builder()
            .connectionsMax(connections)
            .handshakeConnectionsMax(handshakes)
            .connectionsPerAddressMax(perAddress)
            .build());
  }

  private static InetAddress address(int last) throws Exception {
    return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last});
  }

  @Test
  void a_full_handshake_cap_evicts_the_oldest_handshaking_connection_not_the_new_one()
      throws Exception {
    ConnectionGate gate = gate(10, 2, 0);
    Channel first = channel();
    Admission a = gate.admit(first, address(1));
    Admission b = gate.admit(channel(), address(1));
    assertThat(a.evicted()).isNull();
    assertThat(b.evicted()).isNull();

    Admission c = gate.admit(channel(), address(1));

    assertThat(c.ticket()).isNotNull();
    assertThat(c.evicted()).isSameAs(first);
    assertThat(gate.handshaking()).isEqualTo(2);
    assertThat(gate.welcome(a.ticket())).isEqualTo(Verdict.EVICTED);
    assertThat(gate.welcome(b.ticket())).isEqualTo(Verdict.WELCOMED);
  }

  @Test
  void a_flood_from_one_address_evicts_only_its_own_sockets_however_many_it_reopens()
      throws Exception {
    ConnectionGate gate = gate(10, 4, 0);
    Admission client = gate.admit(channel(), address(1));
    List<Channel> flood = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Channel socket = channel();
      Admission a = gate.admit(socket, address(2));
      if (i >= 3) {
        assertThat(a.evicted())
            .as("flood socket %d pushes out an older flood socket", i)
            .isSameAs(flood.get(i - 3));
      }
      flood.add(socket);
    }

    assertThat(gate.handshaking()).isEqualTo(4);
    assertThat(gate.evictions()).isEqualTo(97);
    assertThat(gate.welcome(client.ticket())).isEqualTo(Verdict.WELCOMED);
  }

  @Test
  void between_addresses_holding_equally_many_slots_the_older_connection_goes() throws Exception {
    ConnectionGate gate = gate(10, 4, 0);
    Channel a1 = channel();
    Channel b1 = channel();
    Admission a1Admission = gate.admit(a1, address(1));
    Admission b1Admission = gate.admit(b1, address(2));
    gate.admit(channel(), address(1));
    gate.admit(channel(), address(2));

    assertThat(gate.admit(channel(), address(3)).evicted()).isSameAs(a1);
    assertThat(gate.welcome(a1Admission.ticket())).isEqualTo(Verdict.EVICTED);
    assertThat(gate.admit(channel(), address(3)).evicted())
        .as("address 2 now holds the most slots")
        .isSameAs(b1);
    assertThat(gate.welcome(b1Admission.ticket())).isEqualTo(Verdict.EVICTED);
  }

  @Test
  void welcomed_connections_do_not_use_handshake_slots_and_stop_at_connections_max()
      throws Exception {
    ConnectionGate gate = gate(2, 1, 0);
    for (int i = 0; i < 2; i++) {
      Admission a = gate.admit(channel(), address(1));
      assertThat(a.evicted()).as("a welcomed connection never blocks the handshake").isNull();
      assertThat(gate.welcome(a.ticket())).isEqualTo(Verdict.WELCOMED);
    }
    Admission third = gate.admit(channel(), address(1));
    assertThat(gate.welcome(third.ticket())).isEqualTo(Verdict.FULL);
    assertThat(gate.welcomed()).isEqualTo(2);

    gate.closed(third.ticket());
    assertThat(gate.welcomed()).isEqualTo(2);
    assertThat(gate.handshaking()).isZero();
  }

  @Test
  void closing_a_welcomed_connection_frees_its_slot() throws Exception {
    ConnectionGate gate = gate(1, 1, 0);
    Admission a = gate.admit(channel(), address(1));
    gate.welcome(a.ticket());
    gate.closed(a.ticket());

    Admission b = gate.admit(channel(), address(1));
    assertThat(gate.welcome(b.ticket())).isEqualTo(Verdict.WELCOMED);
  }

  @Test
  void the_per_address_cap_counts_every_connection_of_one_address_only() throws Exception {
    ConnectionGate gate = gate(10, 10, 2);
    Admission a = gate.admit(channel(), address(1));
    gate.welcome(a.ticket());
    gate.admit(channel(), address(1));

    assertThat(gate.admit(channel(), address(1)).ticket()).as("third from .1").isNull();
    assertThat(gate.admit(channel(), address(2)).ticket()).as("first from .2").isNotNull();

    gate.closed(a.ticket());
    assertThat(gate.admit(channel(), address(1)).ticket()).as("after one closed").isNotNull();
  }

  @Test
  void a_per_address_cap_of_zero_is_off() throws Exception {
    ConnectionGate gate = gate(10, 1_000, 0);
    for (int i = 0; i < 500; i++) {
      assertThat(gate.admit(channel(), address(1)).ticket()).isNotNull();
    }
  }
}
