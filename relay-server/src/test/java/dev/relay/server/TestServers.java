package dev.relay.server;

import dev.relay.protocol.Enqueue;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.Lease;
import dev.relay.protocol.Payload;
import dev.relay.protocol.ScheduleKind;
import dev.relay.protocol.Stats;
import dev.relay.protocol.StatsResult;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** Starts servers on 127.0.0.1 port 0 in a temp directory and builds common requests. */
final class TestServers {
  static final long LEASE_MILLIS = 30_000;

  private TestServers() {}

  static RelayServer start(Path dataDir) {
    return start(ServerConfig.defaults(dataDir));
  }

  static RelayServer start(Path dataDir, UnaryOperator<ServerLimits.Builder> limits) {
    ServerConfig defaults = ServerConfig.defaults(dataDir);
    return start(defaults.withLimits(limits.apply(defaults.limits().toBuilder()).build()));
  }

  static RelayServer start(ServerConfig config) {
    return RelayServer.start(config, Clock.systemUTC());
  }

  static Enqueue enqueue(String queue, byte[] payload) {
    return new Enqueue(
        new JobSpec(queue, Payload.of(payload), 0, ScheduleKind.NOW, 0, 0, Optional.empty()));
  }

  static Enqueue enqueue(String queue, String payload) {
    return enqueue(queue, payload.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  static Enqueue enqueueDelayed(String queue, String payload, long delayMillis) {
    return new Enqueue(
        new JobSpec(
            queue,
            Payload.of(payload.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
            0,
            ScheduleKind.DELAY,
            delayMillis,
            0,
            Optional.empty()));
  }

  static Lease lease(String queue, int jobsMax, long waitMillis) {
    return new Lease(List.of(queue), jobsMax, LEASE_MILLIS, waitMillis);
  }

  /** The value of STATS counter {@code name}, asked over {@code client}. */
  static long counter(TestClient client, String name) {
    StatsResult stats = (StatsResult) client.ask(new Stats());
    return stats.counters().stream()
        .filter(c -> c.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no counter " + name + " in " + stats))
        .value();
  }
}
