package dev.relay.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The order in which a client tries its server addresses. One round tries every address once, round
 * robin from a random start, so many clients given the same list spread over the nodes instead of
 * all dialling the first; the address just lost (or the last one tried in vain) goes last, so the
 * clients of a node that died move to the others, spread over them, and a dead node, which may take
 * a whole connect timeout to fail, is tried again only after every other one.
 */
final class AddressOrder {
  private final List<ServerAddress> addresses;
  private final RandomGenerator random;

  /** An order over {@code addresses}, the random starts drawn from {@code random}. */
  AddressOrder(List<ServerAddress> addresses, RandomGenerator random) {
    if (addresses.isEmpty()) {
      throw new IllegalArgumentException("no server address to order");
    }
    this.addresses = List.copyOf(addresses);
    this.random = random;
  }

  /**
   * The addresses to try in the next round: every one once, {@code last} (if it is one of them) at
   * the end, the others in list order from a random one of them, wrapping round.
   */
  List<ServerAddress> round(Optional<ServerAddress> last) {
    List<ServerAddress> others = new ArrayList<>(addresses);
    boolean known = last.isPresent() && others.remove(last.get());
    List<ServerAddress> round = new ArrayList<>(addresses.size());
    if (!others.isEmpty()) {
      int start = random.nextInt(others.size());
      for (int i = 0; i < others.size(); i++) {
        round.add(others.get((start + i) % others.size()));
      }
    }
    if (known) {
      round.add(last.get());
    }
    return round;
  }
}
