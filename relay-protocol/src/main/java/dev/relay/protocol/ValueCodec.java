package dev.relay.protocol;

import io.netty.buffer.ByteBuf;

/** Reads and writes the value types that several messages embed: job specs, jobs and stats. */
final class ValueCodec {
  private ValueCodec() {}

  static void writeJobSpec(ByteBuf out, JobSpec job) {
    WireWriter.string(out, job.queue());
    WireWriter.bytes(out, job.payload());
    WireWriter.u8(out, job.priority());
    WireWriter.u8(out, job.scheduleKind().code());
    WireWriter.i64(out, job.scheduleValue());
    WireWriter.u16(out, job.attemptsMax());
    WireWriter.optString(out, job.idempotencyKey());
    WireWriter.string(out, job.type());
    Headers.write(out, job.headers());
  }

  static JobSpec readJobSpec(WireReader in) throws ProtocolException {
    String queue = in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX);
    Payload payload = in.payload("payload", Side.SERVER);
    int priority = in.u8("priority");
    int kindCode = in.u8("scheduleKind");
    ScheduleKind kind =
        ScheduleKind.fromCode(kindCode)
            .orElseThrow(() -> in.malformed("unknown scheduleKind " + kindCode));
    long scheduleValue = in.i64("scheduleValue");
    int attemptsMax = in.u16("attemptsMax");
    return new JobSpec(
        queue,
        payload,
        priority,
        kind,
        scheduleValue,
        attemptsMax,
        in.optString("idempotencyKey", ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX),
        in.string("type", ProtocolLimits.JOB_TYPE_BYTES_MAX),
        Headers.read(in));
  }

  static void writeLeasedJob(ByteBuf out, LeasedJob job) {
    WireWriter.i64(out, job.jobId());
    WireWriter.string(out, job.queue());
    WireWriter.u8(out, job.priority());
    WireWriter.u16(out, job.attempt());
    WireWriter.i64(out, job.fencingNumber());
    WireWriter.token(out, job.token());
    WireWriter.i64(out, job.enqueuedAtMillis());
    WireWriter.i64(out, job.leaseExpiresAtMillis());
    WireWriter.bytes(out, job.payload());
    WireWriter.string(out, job.type());
    Headers.write(out, job.headers());
  }

  static LeasedJob readLeasedJob(WireReader in) throws ProtocolException {
    return new LeasedJob(
        in.i64("jobId"),
        in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX),
        in.u8("priority"),
        in.u16("attempt"),
        in.i64("fencingNumber"),
        in.token("token"),
        in.i64("enqueuedAtMillis"),
        in.i64("leaseExpiresAtMillis"),
        in.payload("payload", Side.CLIENT),
        in.string("type", ProtocolLimits.JOB_TYPE_BYTES_MAX),
        Headers.read(in));
  }

  static void writeQueueStats(ByteBuf out, QueueStats stats) {
    WireWriter.string(out, stats.queue());
    WireWriter.bool(out, stats.paused());
    WireWriter.i64(out, stats.ready());
    WireWriter.i64(out, stats.scheduled());
    WireWriter.i64(out, stats.leased());
    WireWriter.i64(out, stats.done());
    WireWriter.i64(out, stats.dead());
    WireWriter.i64(out, stats.oldestReadyAgeMillis());
  }

  static QueueStats readQueueStats(WireReader in) throws ProtocolException {
    return new QueueStats(
        in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX),
        in.bool("paused"),
        in.i64("ready"),
        in.i64("scheduled"),
        in.i64("leased"),
        in.i64("done"),
        in.i64("dead"),
        in.i64("oldestReadyAgeMillis"));
  }

  static void writeCounter(ByteBuf out, Counter counter) {
    WireWriter.string(out, counter.name());
    WireWriter.i64(out, counter.value());
  }

  static Counter readCounter(WireReader in) throws ProtocolException {
    return new Counter(
        in.string("counter name", ProtocolLimits.COUNTER_NAME_BYTES_MAX), in.i64("counter value"));
  }

  static void writeJobInfo(ByteBuf out, JobInfo job) {
    WireWriter.i64(out, job.jobId());
    WireWriter.string(out, job.queue());
    WireWriter.u8(out, job.state().code());
    WireWriter.u8(out, job.priority());
    WireWriter.u16(out, job.attempts());
    WireWriter.u16(out, job.attemptsMax());
    WireWriter.i64(out, job.fencingNumber());
    WireWriter.u16(out, job.expiries());
    WireWriter.u16(out, job.failures());
    WireWriter.i64(out, job.enqueuedAtMillis());
    WireWriter.i64(out, job.availableAtMillis());
    WireWriter.i64(out, job.leaseExpiresAtMillis());
    WireWriter.i64(out, job.finishedAtMillis());
    WireWriter.u32(out, job.payloadBytes());
    WireWriter.optString(out, job.lastError());
    WireWriter.optString(out, job.deadReason());
    WireWriter.optString(out, job.idempotencyKey());
    WireWriter.string(out, job.type());
    Headers.write(out, job.headers());
  }

  static JobInfo readJobInfo(WireReader in) throws ProtocolException {
    long jobId = in.i64("jobId");
    String queue = in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX);
    int stateCode = in.u8("state");
    JobState state =
        JobState.fromCode(stateCode).orElseThrow(() -> in.malformed("unknown state " + stateCode));
    int priority = in.u8("priority");
    int attempts = in.u16("attempts");
    int attemptsMax = in.u16("attemptsMax");
    long fencingNumber = in.i64("fencingNumber");
    int expiries = in.u16("expiries");
    int failures = in.u16("failures");
    long enqueuedAtMillis = in.i64("enqueuedAtMillis");
    long availableAtMillis = in.i64("availableAtMillis");
    long leaseExpiresAtMillis = in.i64("leaseExpiresAtMillis");
    long finishedAtMillis = in.i64("finishedAtMillis");
    long payloadBytes = in.u32("payloadBytes");
    if (payloadBytes > ProtocolLimits.PAYLOAD_BYTES_MAX) {
      throw in.malformed("payloadBytes over " + ProtocolLimits.PAYLOAD_BYTES_MAX);
    }
    return new JobInfo(
        jobId,
        queue,
        state,
        priority,
        attempts,
        attemptsMax,
        fencingNumber,
        expiries,
        failures,
        enqueuedAtMillis,
        availableAtMillis,
        leaseExpiresAtMillis,
        finishedAtMillis,
        (int) payloadBytes,
        in.optString("lastError", ProtocolLimits.ERROR_TEXT_BYTES_MAX),
        in.optString("deadReason", ProtocolLimits.ERROR_TEXT_BYTES_MAX),
        in.optString("idempotencyKey", ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX),
        in.string("type", ProtocolLimits.JOB_TYPE_BYTES_MAX),
        Headers.read(in));
  }
}
