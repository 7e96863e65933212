package dev.relay.server.dashboard;

import dev.relay.server.store.JobStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * What the dashboard reads from the running server besides the store.
 *
 * @param store the job store; every figure and action goes through its public calls
 * @param clock the server's clock
 * @param version the server's version
 * @param startedAt when the server started
 * @param connections open protocol connections right now
 * @param access the access a token earns ({@code Optional.empty()}: no token), decided as HELLO
 *     decides principals; see docs/dashboard.md
 * @param authFailureDelay how long a refused login waits for its answer, as a refused HELLO does
 *     ({@code --auth-failure-delay})
 * @param settings the limits in force, for the server page
 */
public record ServerView(
    JobStore store,
    InstantSource clock,
    String version,
    Instant startedAt,
    IntSupplier connections,
    Function<Optional<String>, Access> access,
    Duration authFailureDelay,
    List<Setting> settings) {
  public ServerView {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(connections, "connections");
    Objects.requireNonNull(access, "access");
    Objects.requireNonNull(authFailureDelay, "authFailureDelay");
    settings = List.copyOf(settings);
  }
}
