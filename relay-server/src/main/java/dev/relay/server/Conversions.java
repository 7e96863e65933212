package dev.relay.server;

import dev.relay.protocol.JobInfo;
import dev.relay.protocol.JobState;
import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import dev.relay.protocol.Payload;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.WireText;
import dev.relay.server.store.JobView;
import dev.relay.server.store.LeaseResult;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Turns the store's result types into protocol messages. */
final class Conversions {
  private Conversions() {}

  static Leased leased(LeaseResult result) {
    List<LeasedJob> jobs =
        result.jobs().stream()
            .map(
                j ->
                    new LeasedJob(
                        j.jobId(),
                        j.queue(),
                        j.priority(),
                        j.attempt(),
                        j.fencingNumber(),
                        j.token(),
                        j.enqueuedAt().toEpochMilli(),
                        j.leaseExpiresAt().toEpochMilli(),
                        Payload.of(j.payload()),
                        j.type(),
                        j.headers()))
            .toList();
    return new Leased(jobs);
  }

  static JobInfo jobInfo(JobView v) {
    return new JobInfo(
        v.id(),
        v.queue(),
        JobState.valueOf(v.state().name()),
        v.priority(),
        u16(v.attempts()),
        v.attemptsMax(),
        v.fencingNumber(),
        u16(v.expiries()),
        u16(v.failures()),
        v.enqueuedAt().toEpochMilli(),
        v.availableAt().toEpochMilli(),
        millisOrNone(v.leaseExpiresAt()),
        millisOrNone(v.finishedAt()),
        (int) v.payloadBytes(),
        Optional.ofNullable(v.lastError()).map(Conversions::errorText),
        Optional.ofNullable(v.deadReason()).map(Conversions::errorText),
        Optional.ofNullable(v.idempotencyKey()),
        v.type(),
        v.headers());
  }

  /** Counters are u16 on the wire; a larger count is reported as the largest u16. */
  private static int u16(long count) {
    return (int) Math.min(count, ProtocolLimits.U16_MAX);
  }

  private static long millisOrNone(Instant instant) {
    return instant == null ? JobInfo.TIME_NONE : instant.toEpochMilli();
  }

  /** Stored error text fitted to the wire's field, whatever a direct store caller put there. */
  private static String errorText(String text) {
    return WireText.fit(text, ProtocolLimits.ERROR_TEXT_BYTES_MAX);
  }
}
