package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

final class AddressOrderTest {
  private static final ServerAddress A = new ServerAddress("a", 1);
  private static final ServerAddress B = new ServerAddress("b", 2);
  private static final ServerAddress C = new ServerAddress("c", 3);
  private static final ServerAddress D = new ServerAddress("d", 4);

  /** A random source that draws {@code start} every time (it must be below the bound asked). */
  private static RandomGenerator always(int start) {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        throw new UnsupportedOperationException("only nextInt(bound) is used");
      }

      @Override
      public int nextInt(int bound) {
        assertThat(start).isLessThan(bound);
        return start;
      }
    };
  }

  @Test
  void a_first_round_is_the_list_in_order_from_the_random_start_wrapping_round() {
    assertThat(new AddressOrder(List.of(A, B, C, D), always(0)).round(Optional.empty()))
        .containsExactly(A, B, C, D);
    assertThat(new AddressOrder(List.of(A, B, C, D), always(2)).round(Optional.empty()))
        .containsExactly(C, D, A, B);
  }

  @Test
  void the_address_just_lost_goes_last_and_the_others_start_at_random() {
    assertThat(new AddressOrder(List.of(A, B, C, D), always(0)).round(Optional.of(A)))
        .containsExactly(B, C, D, A);
    assertThat(new AddressOrder(List.of(A, B, C, D), always(1)).round(Optional.of(A)))
        .containsExactly(C, D, B, A);
    assertThat(new AddressOrder(List.of(A, B, C, D), always(2)).round(Optional.of(C)))
        .containsExactly(D, A, B, C);
  }

  @Test
  void one_address_is_a_round_of_one_whatever_was_lost() {
    AddressOrder order = new AddressOrder(List.of(A), always(0));

    assertThat(order.round(Optional.empty())).containsExactly(A);
    assertThat(order.round(Optional.of(A))).containsExactly(A);
  }

  @Test
  void the_clients_of_a_lost_node_spread_over_every_other_node_first() {
    Random random = new Random(16);
    Map<ServerAddress, Integer> firstTried = new HashMap<>();
    List<List<ServerAddress>> rounds = new ArrayList<>();
    for (int client = 0; client < 300; client++) {
      List<ServerAddress> round =
          new AddressOrder(List.of(A, B, C, D), random).round(Optional.of(B));
      rounds.add(round);
      firstTried.merge(round.get(0), 1, Integer::sum);
    }

    assertThat(rounds)
        .allSatisfy(
            round -> {
              assertThat(round).containsExactlyInAnyOrder(A, B, C, D);
              assertThat(round.get(3)).isEqualTo(B);
            });
    assertThat(firstTried.keySet()).containsExactlyInAnyOrder(A, C, D);
    assertThat(firstTried.values()).allSatisfy(n -> assertThat(n).isGreaterThan(50));
  }
}
