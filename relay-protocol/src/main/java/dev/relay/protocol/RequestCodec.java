package dev.relay.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/** Reads and writes the bodies of request messages; the layouts are in docs/protocol.md. */
final class RequestCodec {
  private RequestCodec() {}

  static void write(ByteBuf out, Request request) {
    if (request instanceof Hello m) {
      WireWriter.u16(out, m.protocolVersion());
      WireWriter.string(out, m.clientName());
      WireWriter.optString(out, m.authToken());
    } else if (request instanceof Enqueue m) {
      ValueCodec.writeJobSpec(out, m.job());
    } else if (request instanceof EnqueueBatch m) {
      WireWriter.u16(out, m.jobs().size());
      m.jobs().forEach(job -> ValueCodec.writeJobSpec(out, job));
    } else if (request instanceof Lease m) {
      WireWriter.u16(out, m.queues().size());
      m.queues().forEach(queue -> WireWriter.string(out, queue));
      WireWriter.u16(out, m.jobsMax());
      WireWriter.i64(out, m.leaseMillis());
      WireWriter.i64(out, m.waitMillis());
    } else if (request instanceof Ack m) {
      writeLease(out, m.jobId(), m.token());
    } else if (request instanceof Nack m) {
      writeLease(out, m.jobId(), m.token());
      WireWriter.string(out, m.errorText());
      WireWriter.i64(out, m.retryDelayMillis());
    } else if (request instanceof Release m) {
      writeLease(out, m.jobId(), m.token());
    } else if (request instanceof Renew m) {
      writeLease(out, m.jobId(), m.token());
      WireWriter.i64(out, m.leaseMillis());
    } else if (request instanceof Stats) {
      // empty body
    } else if (request instanceof Inspect m) {
      WireWriter.i64(out, m.jobId());
    } else if (request instanceof DeadList m) {
      WireWriter.string(out, m.queue());
      WireWriter.i64(out, m.afterJobId());
      WireWriter.u16(out, m.limit());
    } else if (request instanceof DeadRequeue m) {
      WireWriter.string(out, m.queue());
      WireWriter.i64(out, m.jobId());
    } else if (request instanceof Cancel m) {
      WireWriter.i64(out, m.jobId());
    } else if (request instanceof Pause m) {
      WireWriter.string(out, m.queue());
      WireWriter.bool(out, m.create());
    } else if (request instanceof Resume m) {
      WireWriter.string(out, m.queue());
    } else if (request instanceof Backup m) {
      WireWriter.string(out, m.name());
    } else if (request instanceof DeleteQueue m) {
      WireWriter.string(out, m.queue());
    } else if (request instanceof DeadPurge m) {
      WireWriter.string(out, m.queue());
      WireWriter.i64(out, m.olderThanMillis());
    } else if (request instanceof InspectPayload m) {
      WireWriter.i64(out, m.jobId());
      WireWriter.u32(out, m.bytesMax());
    } else if (request instanceof JobsList m) {
      WireWriter.string(out, m.queue());
      WireWriter.u8(out, m.state().code());
      WireWriter.u8(out, m.order().code());
      WireWriter.i64(out, m.afterJobId());
      WireWriter.u16(out, m.limit());
    } else {
      throw new AssertionError("no writer for " + request.opcode());
    }
  }

  private static void writeLease(ByteBuf out, long jobId, FencingToken token) {
    WireWriter.i64(out, jobId);
    WireWriter.token(out, token);
  }

  /** The request for {@code in.opcode()}, which must be a request opcode. */
  static Request read(WireReader in) throws ProtocolException {
    return switch (in.opcode()) {
      case HELLO ->
          new Hello(
              in.u16("protocolVersion"),
              in.string("clientName", ProtocolLimits.CLIENT_NAME_BYTES_MAX),
              in.optString("authToken", ProtocolLimits.AUTH_TOKEN_BYTES_MAX));
      case ENQUEUE -> new Enqueue(ValueCodec.readJobSpec(in));
      case ENQUEUE_BATCH -> new EnqueueBatch(readJobSpecs(in));
      case LEASE ->
          new Lease(readQueues(in), in.u16("jobsMax"), in.i64("leaseMillis"), in.i64("waitMillis"));
      case ACK -> new Ack(in.i64("jobId"), in.token("token"));
      case NACK ->
          new Nack(
              in.i64("jobId"),
              in.token("token"),
              in.string("errorText", ProtocolLimits.ERROR_TEXT_BYTES_MAX),
              in.i64("retryDelayMillis"));
      case RELEASE -> new Release(in.i64("jobId"), in.token("token"));
      case RENEW -> new Renew(in.i64("jobId"), in.token("token"), in.i64("leaseMillis"));
      case STATS -> new Stats();
      case INSPECT -> new Inspect(in.i64("jobId"));
      case DEAD_LIST ->
          new DeadList(
              in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX),
              in.i64("afterJobId"),
              in.u16("limit"));
      case DEAD_REQUEUE ->
          new DeadRequeue(in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX), in.i64("jobId"));
      case CANCEL -> new Cancel(in.i64("jobId"));
      case PAUSE ->
          new Pause(in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX), in.bool("create"));
      case RESUME -> new Resume(in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX));
      case BACKUP -> new Backup(in.string("name", ProtocolLimits.BACKUP_NAME_BYTES_MAX));
      case DELETE_QUEUE -> new DeleteQueue(in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX));
      case DEAD_PURGE ->
          new DeadPurge(
              in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX), in.i64("olderThanMillis"));
      case JOBS_LIST -> readJobsList(in);
      case INSPECT_PAYLOAD -> readInspectPayload(in);
      default -> throw new AssertionError("not a request opcode: " + in.opcode());
    };
  }

  private static InspectPayload readInspectPayload(WireReader in) throws ProtocolException {
    long jobId = in.i64("jobId");
    long bytesMax = in.u32("bytesMax");
    if (bytesMax > ProtocolLimits.PAYLOAD_BYTES_MAX) {
      throw in.malformed("bytesMax over " + ProtocolLimits.PAYLOAD_BYTES_MAX);
    }
    return new InspectPayload(jobId, (int) bytesMax);
  }

  private static JobsList readJobsList(WireReader in) throws ProtocolException {
    String queue = in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX);
    int state = in.u8("state");
    StateFilter filter =
        StateFilter.fromCode(state).orElseThrow(() -> in.malformed("unknown state " + state));
    int order = in.u8("order");
    ListOrder listOrder =
        ListOrder.fromCode(order).orElseThrow(() -> in.malformed("unknown order " + order));
    return new JobsList(queue, filter, listOrder, in.i64("afterJobId"), in.u16("limit"));
  }

  private static List<JobSpec> readJobSpecs(WireReader in) throws ProtocolException {
    int count = in.count("job count", 1, ProtocolLimits.JOBS_PER_BATCH_MAX);
    List<JobSpec> jobs = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      jobs.add(ValueCodec.readJobSpec(in));
    }
    return jobs;
  }

  private static List<String> readQueues(WireReader in) throws ProtocolException {
    int count = in.count("queue count", 1, ProtocolLimits.QUEUES_PER_LEASE_MAX);
    List<String> queues = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      queues.add(in.string("queue", ProtocolLimits.QUEUE_NAME_BYTES_MAX));
    }
    return queues;
  }
}
