package dev.relay.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/** Reads and writes the bodies of response messages; the layouts are in docs/protocol.md. */
final class ResponseCodec {
  private ResponseCodec() {}

  static void write(ByteBuf out, Response response) {
    if (response instanceof Ok) {
      // empty body
    } else if (response instanceof Welcome m) {
      writeWelcome(out, m);
    } else if (response instanceof Enqueued m) {
      WireWriter.i64(out, m.jobId());
      WireWriter.bool(out, m.created());
    } else if (response instanceof EnqueuedBatch m) {
      WireWriter.u16(out, m.results().size());
      for (EnqueueResult result : m.results()) {
        WireWriter.i64(out, result.jobId());
        WireWriter.bool(out, result.created());
      }
    } else if (response instanceof Leased m) {
      WireWriter.u16(out, m.jobs().size());
      m.jobs().forEach(job -> ValueCodec.writeLeasedJob(out, job));
    } else if (response instanceof Renewed m) {
      WireWriter.i64(out, m.leaseExpiresAtMillis());
    } else if (response instanceof StatsResult m) {
      WireWriter.u16(out, m.queues().size());
      m.queues().forEach(stats -> ValueCodec.writeQueueStats(out, stats));
      WireWriter.u16(out, m.counters().size());
      m.counters().forEach(counter -> ValueCodec.writeCounter(out, counter));
    } else if (response instanceof JobInfo m) {
      ValueCodec.writeJobInfo(out, m);
    } else if (response instanceof DeadJobs m) {
      WireWriter.u16(out, m.jobs().size());
      m.jobs().forEach(job -> ValueCodec.writeJobInfo(out, job));
      WireWriter.i64(out, m.nextAfterJobId());
    } else if (response instanceof Requeued m) {
      WireWriter.i64(out, m.count());
    } else if (response instanceof BackedUp m) {
      WireWriter.i64(out, m.bytes());
      WireWriter.string(out, m.name());
    } else if (response instanceof Jobs m) {
      WireWriter.u16(out, m.jobs().size());
      m.jobs().forEach(job -> ValueCodec.writeJobInfo(out, job));
      WireWriter.i64(out, m.nextAfterJobId());
    } else if (response instanceof PayloadPart m) {
      WireWriter.u32(out, m.payloadBytes());
      WireWriter.bytes(out, m.start());
    } else if (response instanceof Purged m) {
      WireWriter.u32(out, m.count());
      WireWriter.bool(out, m.more());
    } else if (response instanceof ErrorResponse m) {
      WireWriter.u16(out, m.code().code());
      WireWriter.bool(out, m.retryable());
      WireWriter.string(out, m.message());
    } else {
      throw new AssertionError("no writer for " + response.opcode());
    }
  }

  private static void writeWelcome(ByteBuf out, Welcome m) {
    WireWriter.u16(out, m.protocolVersion());
    WireWriter.string(out, m.serverVersion());
    WireWriter.u32(out, m.frameBytesMax());
    WireWriter.u32(out, m.payloadBytesMax());
    WireWriter.u16(out, m.jobsPerLeaseMax());
    WireWriter.u16(out, m.jobsPerBatchMax());
    WireWriter.u16(out, m.inFlightRequestsMax());
    WireWriter.i64(out, m.leaseMillisMin());
    WireWriter.i64(out, m.leaseMillisMax());
    WireWriter.i64(out, m.waitMillisMax());
    WireWriter.u8(out, m.principal().code());
  }

  /** The response for {@code in.opcode()}, which must be a response opcode. */
  static Response read(WireReader in) throws ProtocolException {
    return switch (in.opcode()) {
      case OK -> new Ok();
      case WELCOME -> readWelcome(in);
      case ENQUEUED -> new Enqueued(in.i64("jobId"), in.bool("created"));
      case ENQUEUED_BATCH -> new EnqueuedBatch(readEnqueueResults(in));
      case LEASED -> new Leased(readLeasedJobs(in));
      case RENEWED -> new Renewed(in.i64("leaseExpiresAtMillis"));
      case STATS_RESULT -> readStatsResult(in);
      case JOB_INFO -> ValueCodec.readJobInfo(in);
      case DEAD_JOBS ->
          new DeadJobs(
              readJobInfos(in, ProtocolLimits.DEAD_LIST_PAGE_MAX), in.i64("nextAfterJobId"));
      case REQUEUED -> new Requeued(in.i64("count"));
      case BACKED_UP ->
          new BackedUp(in.i64("bytes"), in.string("name", ProtocolLimits.BACKUP_NAME_BYTES_MAX));
      case PURGED -> readPurged(in);
      case PAYLOAD -> readPayloadPart(in);
      case JOBS ->
          new Jobs(readJobInfos(in, ProtocolLimits.JOBS_LIST_PAGE_MAX), in.i64("nextAfterJobId"));
      case ERROR -> readError(in);
      default -> throw new AssertionError("not a response opcode: " + in.opcode());
    };
  }

  private static Welcome readWelcome(WireReader in) throws ProtocolException {
    int protocolVersion = in.u16("protocolVersion");
    String serverVersion = in.string("serverVersion", ProtocolLimits.SERVER_VERSION_BYTES_MAX);
    long frameBytesMax = in.u32("frameBytesMax");
    long payloadBytesMax = in.u32("payloadBytesMax");
    if (frameBytesMax > ProtocolLimits.FRAME_BYTES_MAX
        || payloadBytesMax > ProtocolLimits.PAYLOAD_BYTES_MAX) {
      throw in.malformed("frameBytesMax or payloadBytesMax over the protocol maximum");
    }
    return new Welcome(
        protocolVersion,
        serverVersion,
        (int) frameBytesMax,
        (int) payloadBytesMax,
        in.u16("jobsPerLeaseMax"),
        in.u16("jobsPerBatchMax"),
        in.u16("inFlightRequestsMax"),
        in.i64("leaseMillisMin"),
        in.i64("leaseMillisMax"),
        in.i64("waitMillisMax"),
        readPrincipal(in));
  }

  private static Principal readPrincipal(WireReader in) throws ProtocolException {
    int code = in.u8("principal");
    return Principal.fromCode(code).orElseThrow(() -> in.malformed("unknown principal " + code));
  }

  private static List<EnqueueResult> readEnqueueResults(WireReader in) throws ProtocolException {
    int count = in.count("result count", 1, ProtocolLimits.JOBS_PER_BATCH_MAX);
    List<EnqueueResult> results = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      results.add(new EnqueueResult(in.i64("jobId"), in.bool("created")));
    }
    return results;
  }

  private static List<LeasedJob> readLeasedJobs(WireReader in) throws ProtocolException {
    int count = in.count("job count", 0, ProtocolLimits.JOBS_PER_LEASE_MAX);
    List<LeasedJob> jobs = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      jobs.add(ValueCodec.readLeasedJob(in));
    }
    return jobs;
  }

  private static StatsResult readStatsResult(WireReader in) throws ProtocolException {
    int queueCount = in.count("queue count", 0, ProtocolLimits.STATS_QUEUES_MAX);
    List<QueueStats> queues = new ArrayList<>(queueCount);
    for (int i = 0; i < queueCount; i++) {
      queues.add(ValueCodec.readQueueStats(in));
    }
    int counterCount = in.count("counter count", 0, ProtocolLimits.STATS_COUNTERS_MAX);
    List<Counter> counters = new ArrayList<>(counterCount);
    for (int i = 0; i < counterCount; i++) {
      counters.add(ValueCodec.readCounter(in));
    }
    return new StatsResult(queues, counters);
  }

  private static List<JobInfo> readJobInfos(WireReader in, int countMax) throws ProtocolException {
    int count = in.count("job count", 0, countMax);
    List<JobInfo> jobs = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      jobs.add(ValueCodec.readJobInfo(in));
    }
    return jobs;
  }

  private static PayloadPart readPayloadPart(WireReader in) throws ProtocolException {
    long payloadBytes = in.u32("payloadBytes");
    if (payloadBytes > ProtocolLimits.PAYLOAD_BYTES_MAX) {
      throw in.malformed("payloadBytes over " + ProtocolLimits.PAYLOAD_BYTES_MAX);
    }
    return new PayloadPart((int) payloadBytes, in.payload("start", Side.CLIENT));
  }

  private static Purged readPurged(WireReader in) throws ProtocolException {
    long count = in.u32("count");
    if (count > ProtocolLimits.DEAD_PURGE_JOBS_MAX) {
      throw in.malformed("count " + count + " over DEAD_PURGE_JOBS_MAX");
    }
    return new Purged((int) count, in.bool("more"));
  }

  private static ErrorResponse readError(WireReader in) throws ProtocolException {
    int code = in.u16("code");
    ErrorCode errorCode =
        ErrorCode.fromCode(code).orElseThrow(() -> in.malformed("unknown error code " + code));
    return new ErrorResponse(
        errorCode, in.bool("retryable"), in.string("message", ProtocolLimits.ERROR_TEXT_BYTES_MAX));
  }
}
