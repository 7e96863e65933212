package dev.relay.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;

/**
 * Malformed inputs, one per way a frame can be broken, each with the error the receiver must raise.
 * Shared by {@link MalformedFrameTest} and the published vectors.
 */
final class MalformedSamples {
  static final int REQUEST_ID = 0x0A0B0C0D;

  /**
   * One malformed input.
   *
   * @param name what is wrong
   * @param side the receiving side
   * @param bytes the whole input, length prefix included
   * @param code the error the receiver raises
   * @param hasRequestId whether the error carries {@link #REQUEST_ID}
   */
  record Case(String name, Side side, byte[] bytes, ErrorCode code, boolean hasRequestId) {
    String hex() {
      return HexFormat.of().formatHex(bytes);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private MalformedSamples() {}

  static List<Case> cases() {
    List<Case> cases = new ArrayList<>();
    cases.add(
        raw("length_under_header", Side.SERVER, "00000004 01 00000001", ErrorCode.MALFORMED_FRAME));
    cases.add(raw("length_zero", Side.CLIENT, "00000000", ErrorCode.MALFORMED_FRAME));
    cases.add(
        raw(
            "length_over_frame_max",
            Side.SERVER,
            String.format("%08x", ProtocolLimits.FRAME_BYTES_MAX + 1),
            ErrorCode.FRAME_TOO_LARGE));
    cases.add(raw("length_u32_max", Side.CLIENT, "ffffffff", ErrorCode.FRAME_TOO_LARGE));
    cases.add(body("unknown_opcode", Side.SERVER, 0x42, b -> {}, ErrorCode.UNKNOWN_OPCODE));
    cases.add(
        body(
            "response_opcode_sent_to_server",
            Side.SERVER,
            0x80,
            b -> {},
            ErrorCode.UNKNOWN_OPCODE));
    cases.add(
        body(
            "request_opcode_sent_to_client", Side.CLIENT, 0x09, b -> {}, ErrorCode.UNKNOWN_OPCODE));
    cases.add(body("ack_truncated_token", Side.SERVER, 0x05, b -> b.writeLong(7).writeInt(0)));
    cases.add(body("stats_with_trailing_byte", Side.SERVER, 0x09, b -> b.writeByte(0)));
    cases.add(body("inspect_trailing_bytes", Side.SERVER, 0x0A, b -> b.writeLong(9).writeShort(1)));
    cases.add(
        body(
            "pause_string_past_frame_end",
            Side.SERVER,
            0x0E,
            b -> b.writeShort(10).writeByte('a')));
    cases.add(
        body(
            "pause_invalid_utf8",
            Side.SERVER,
            0x0E,
            b -> string(b, new byte[] {(byte) 0xC3, 0x28})));
    cases.add(
        body(
            "backup_overlong_utf8",
            Side.SERVER,
            0x10,
            b -> string(b, new byte[] {(byte) 0xC0, (byte) 0xAF})));
    cases.add(
        body(
            "backup_encoded_surrogate",
            Side.SERVER,
            0x10,
            b -> string(b, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80})));
    cases.add(body("backup_name_absolute_path", Side.SERVER, 0x10, b -> string(b, "/etc/x")));
    cases.add(body("backup_name_dot_dot", Side.SERVER, 0x10, b -> string(b, "..")));
    cases.add(body("backup_name_hidden", Side.SERVER, 0x10, b -> string(b, ".ssh")));
    cases.add(body("backup_name_separator", Side.SERVER, 0x10, b -> string(b, "a/b")));
    cases.add(
        body(
            "backup_name_over_cap",
            Side.SERVER,
            0x10,
            b -> string(b, "b".repeat(ProtocolLimits.BACKUP_NAME_BYTES_MAX + 1))));
    cases.add(body("pause_queue_with_space", Side.SERVER, 0x0E, b -> string(b, "a b")));
    cases.add(body("pause_without_create", Side.SERVER, 0x0E, b -> string(b, "emails")));
    cases.add(
        body(
            "pause_create_not_a_boolean",
            Side.SERVER,
            0x0E,
            b -> {
              string(b, "emails");
              b.writeByte(2);
            }));
    cases.add(body("delete_queue_empty_queue", Side.SERVER, 0x11, b -> string(b, "")));
    cases.add(
        body(
            "delete_queue_trailing_byte",
            Side.SERVER,
            0x11,
            b -> {
              string(b, "emails");
              b.writeByte(0);
            }));
    cases.add(body("pause_empty_queue", Side.SERVER, 0x0E, b -> string(b, "")));
    cases.add(
        body(
            "pause_queue_over_cap",
            Side.SERVER,
            0x0E,
            b -> string(b, "q".repeat(ProtocolLimits.QUEUE_NAME_BYTES_MAX + 1))));
    cases.add(
        body(
            "nack_error_text_over_cap",
            Side.SERVER,
            0x06,
            b -> {
              b.writeLong(7).writeBytes(Samples.TOKEN.toBytes());
              string(b, "e".repeat(ProtocolLimits.ERROR_TEXT_BYTES_MAX + 1));
              b.writeLong(-1);
            }));
    cases.add(
        body(
            "nack_retry_delay_under_minus_one",
            Side.SERVER,
            0x06,
            b -> {
              b.writeLong(7).writeBytes(Samples.TOKEN.toBytes());
              string(b, "");
              b.writeLong(-2);
            }));
    cases.add(
        body(
            "hello_auth_presence_2",
            Side.SERVER,
            0x01,
            b -> {
              b.writeShort(1);
              string(b, "w");
              b.writeByte(2);
            }));
    cases.add(
        body(
            "ack_job_id_zero",
            Side.SERVER,
            0x05,
            b -> b.writeLong(0).writeBytes(Samples.TOKEN.toBytes())));
    cases.add(body("lease_zero_queues", Side.SERVER, 0x04, b -> b.writeShort(0)));
    cases.add(
        body(
            "lease_too_many_queues",
            Side.SERVER,
            0x04,
            b -> b.writeShort(ProtocolLimits.QUEUES_PER_LEASE_MAX + 1)));
    cases.add(body("lease_zero_max_jobs", Side.SERVER, 0x04, b -> lease(b, 0, 1000, 0)));
    cases.add(
        body(
            "lease_max_jobs_over_cap",
            Side.SERVER,
            0x04,
            b -> lease(b, ProtocolLimits.JOBS_PER_LEASE_MAX + 1, 1000, 0)));
    cases.add(body("lease_zero_lease_millis", Side.SERVER, 0x04, b -> lease(b, 1, 0, 0)));
    cases.add(body("lease_negative_wait", Side.SERVER, 0x04, b -> lease(b, 1, 1000, -1)));
    cases.add(body("enqueue_priority_4", Side.SERVER, 0x02, b -> jobSpec(b, 4, 0, 0)));
    cases.add(body("enqueue_schedule_kind_3", Side.SERVER, 0x02, b -> jobSpec(b, 0, 3, 0)));
    cases.add(body("enqueue_now_with_value", Side.SERVER, 0x02, b -> jobSpec(b, 0, 0, 5)));
    cases.add(body("enqueue_negative_delay", Side.SERVER, 0x02, b -> jobSpec(b, 0, 1, -1)));
    cases.add(
        body(
            "enqueue_type_with_space",
            Side.SERVER,
            0x02,
            b -> typedJobSpec(b, "email send", headers(0, 0))));
    cases.add(
        body(
            "enqueue_type_over_cap",
            Side.SERVER,
            0x02,
            b ->
                typedJobSpec(b, "t".repeat(ProtocolLimits.JOB_TYPE_BYTES_MAX + 1), headers(0, 0))));
    cases.add(
        body(
            "enqueue_header_count_over_cap",
            Side.SERVER,
            0x02,
            b -> typedJobSpec(b, "", headers(ProtocolLimits.HEADERS_MAX + 1, 0))));
    cases.add(
        body(
            "enqueue_header_name_empty",
            Side.SERVER,
            0x02,
            b -> typedJobSpec(b, "", header("", "v"))));
    cases.add(
        body(
            "enqueue_header_name_with_colon",
            Side.SERVER,
            0x02,
            b -> typedJobSpec(b, "", header("a:b", "v"))));
    cases.add(
        body(
            "enqueue_header_name_over_cap",
            Side.SERVER,
            0x02,
            b ->
                typedJobSpec(
                    b, "", header("n".repeat(ProtocolLimits.HEADER_NAME_BYTES_MAX + 1), ""))));
    cases.add(
        body(
            "enqueue_header_value_over_cap",
            Side.SERVER,
            0x02,
            b ->
                typedJobSpec(
                    b, "", header("n", "v".repeat(ProtocolLimits.HEADER_VALUE_BYTES_MAX + 1)))));
    cases.add(
        body(
            "enqueue_header_twice",
            Side.SERVER,
            0x02,
            b ->
                typedJobSpec(
                    b,
                    "",
                    h -> {
                      h.writeByte(2);
                      string(h, "tenant");
                      string(h, "a");
                      string(h, "tenant");
                      string(h, "b");
                    })));
    cases.add(
        body(
            "enqueue_headers_over_total_cap",
            Side.SERVER,
            0x02,
            // 8 headers of 2+2 name bytes and 2+1020 value bytes: 1 + 8 * 1026 = 8209 > 8192
            b -> typedJobSpec(b, "", headers(8, 1020))));
    cases.add(
        body(
            "enqueue_headers_missing",
            Side.SERVER,
            0x02,
            b -> typedJobSpec(b, "email.send", h -> {})));
    cases.add(body("enqueue_batch_zero_jobs", Side.SERVER, 0x03, b -> b.writeShort(0)));
    cases.add(
        body(
            "enqueue_batch_over_cap",
            Side.SERVER,
            0x03,
            b -> b.writeShort(ProtocolLimits.JOBS_PER_BATCH_MAX + 1)));
    cases.add(
        body(
            "enqueue_payload_length_past_frame_end",
            Side.SERVER,
            0x02,
            b -> {
              string(b, "q");
              b.writeInt(100).writeBytes(new byte[10]);
            }));
    cases.add(
        new Case(
            "enqueue_payload_over_cap",
            Side.SERVER,
            payloadOverCap(),
            ErrorCode.PAYLOAD_TOO_LARGE,
            true));
    cases.add(body("enqueued_created_2", Side.CLIENT, 0x82, b -> b.writeLong(1).writeByte(2)));
    cases.add(
        body(
            "error_unknown_code",
            Side.CLIENT,
            0xFF,
            b -> {
              b.writeShort(999).writeByte(0);
              string(b, "");
            }));
    cases.add(
        body(
            "error_code_zero",
            Side.CLIENT,
            0xFF,
            b -> {
              b.writeShort(0).writeByte(0);
              string(b, "");
            }));
    cases.add(
        body(
            "job_info_state_5",
            Side.CLIENT,
            0x8A,
            b -> {
              b.writeLong(1);
              string(b, "q");
              b.writeByte(5);
            }));
    cases.add(
        body(
            "leased_too_many_jobs",
            Side.CLIENT,
            0x84,
            b -> b.writeShort(ProtocolLimits.JOBS_PER_LEASE_MAX + 1)));
    cases.add(body("renewed_truncated", Side.CLIENT, 0x88, b -> b.writeInt(1)));
    cases.add(body("requeued_negative_count", Side.CLIENT, 0x8C, b -> b.writeLong(-1)));
    cases.add(
        body(
            "purged_count_over_cap",
            Side.CLIENT,
            0x92,
            b -> b.writeInt(ProtocolLimits.DEAD_PURGE_JOBS_MAX + 1).writeByte(1)));
    cases.add(
        body("inspect_payload_bytes_max_0", Side.SERVER, 0x14, b -> b.writeLong(1).writeInt(0)));
    cases.add(
        body(
            "inspect_payload_bytes_max_over_cap",
            Side.SERVER,
            0x14,
            b -> b.writeLong(1).writeInt(ProtocolLimits.PAYLOAD_BYTES_MAX + 1)));
    cases.add(
        body(
            "payload_start_longer_than_payload",
            Side.CLIENT,
            0x94,
            b -> b.writeInt(1).writeInt(2).writeByte(1).writeByte(2)));
    cases.add(
        body(
            "jobs_list_state_6",
            Side.SERVER,
            0x13,
            b -> {
              string(b, "emails");
              b.writeByte(6).writeByte(0).writeLong(0).writeShort(1);
            }));
    cases.add(
        body(
            "jobs_list_order_2",
            Side.SERVER,
            0x13,
            b -> {
              string(b, "emails");
              b.writeByte(0).writeByte(2).writeLong(0).writeShort(1);
            }));
    cases.add(
        body(
            "jobs_list_limit_0",
            Side.SERVER,
            0x13,
            b -> {
              string(b, "emails");
              b.writeByte(0).writeByte(0).writeLong(0).writeShort(0);
            }));
    cases.add(
        body(
            "jobs_list_limit_over_cap",
            Side.SERVER,
            0x13,
            b -> {
              string(b, "emails");
              b.writeByte(0)
                  .writeByte(0)
                  .writeLong(0)
                  .writeShort(ProtocolLimits.JOBS_LIST_PAGE_MAX + 1);
            }));
    cases.add(
        body(
            "jobs_too_many_jobs",
            Side.CLIENT,
            0x93,
            b -> b.writeShort(ProtocolLimits.JOBS_LIST_PAGE_MAX + 1)));
    cases.add(body("purged_more_byte_2", Side.CLIENT, 0x92, b -> b.writeInt(1).writeByte(2)));
    cases.add(
        body(
            "dead_purge_negative_age",
            Side.SERVER,
            0x12,
            b -> {
              string(b, "emails");
              b.writeLong(-1);
            }));
    cases.add(
        body(
            "dead_purge_age_over_cap",
            Side.SERVER,
            0x12,
            b -> {
              string(b, "emails");
              b.writeLong(ProtocolLimits.SCHEDULE_AHEAD_MILLIS_MAX + 1);
            }));
    cases.add(
        body(
            "dead_purge_empty_queue",
            Side.SERVER,
            0x12,
            b -> {
              string(b, "");
              b.writeLong(0);
            }));
    return cases;
  }

  private static Case raw(String name, Side side, String hex, ErrorCode code) {
    return new Case(name, side, HexFormat.of().parseHex(hex.replace(" ", "")), code, false);
  }

  private static Case body(String name, Side side, int opcode, Consumer<ByteBuf> body) {
    return body(name, side, opcode, body, ErrorCode.MALFORMED_FRAME);
  }

  private static Case body(
      String name, Side side, int opcode, Consumer<ByteBuf> body, ErrorCode code) {
    return new Case(name, side, frame(opcode, REQUEST_ID, body), code, true);
  }

  /** A whole frame with a correct length prefix around {@code body}. */
  static byte[] frame(int opcode, int requestId, Consumer<ByteBuf> body) {
    ByteBuf buf = Unpooled.buffer();
    try {
      buf.writeInt(0).writeByte(opcode).writeInt(requestId);
      body.accept(buf);
      buf.setInt(0, buf.readableBytes() - ProtocolLimits.LENGTH_PREFIX_BYTES);
      byte[] bytes = new byte[buf.readableBytes()];
      buf.readBytes(bytes);
      return bytes;
    } finally {
      buf.release();
    }
  }

  private static void string(ByteBuf b, String value) {
    string(b, value.getBytes(StandardCharsets.UTF_8));
  }

  private static void string(ByteBuf b, byte[] utf8) {
    b.writeShort(utf8.length).writeBytes(utf8);
  }

  private static void lease(ByteBuf b, int jobsMax, long leaseMillis, long waitMillis) {
    b.writeShort(1);
    string(b, "q");
    b.writeShort(jobsMax).writeLong(leaseMillis).writeLong(waitMillis);
  }

  private static void jobSpec(ByteBuf b, int priority, int scheduleKind, long scheduleValue) {
    string(b, "q");
    b.writeInt(0).writeByte(priority).writeByte(scheduleKind).writeLong(scheduleValue);
    b.writeShort(0).writeByte(0);
    string(b, "");
    b.writeByte(0);
  }

  /** An ENQUEUE body of a valid untyped job up to its type, then {@code type} and {@code rest}. */
  private static void typedJobSpec(ByteBuf b, String type, Consumer<ByteBuf> headers) {
    string(b, "q");
    b.writeInt(0).writeByte(0).writeByte(0).writeLong(0);
    b.writeShort(0).writeByte(0);
    string(b, type);
    headers.accept(b);
  }

  /** {@code count} headers named h0, h1, ... each with a value of {@code valueBytes} bytes. */
  private static Consumer<ByteBuf> headers(int count, int valueBytes) {
    return b -> {
      b.writeByte(count);
      for (int i = 0; i < count; i++) {
        string(b, "h" + i);
        string(b, "v".repeat(valueBytes));
      }
    };
  }

  private static Consumer<ByteBuf> header(String name, String value) {
    return b -> {
      b.writeByte(1);
      string(b, name);
      string(b, value);
    };
  }

  /** An ENQUEUE whose payload is one byte over the cap, and lies wholly inside its frame. */
  private static byte[] payloadOverCap() {
    return frame(
        0x02,
        REQUEST_ID,
        b -> {
          string(b, "q");
          b.writeInt(ProtocolLimits.PAYLOAD_BYTES_MAX + 1);
          b.writeZero(ProtocolLimits.PAYLOAD_BYTES_MAX + 1);
          b.writeByte(0).writeByte(0).writeLong(0).writeShort(0).writeByte(0);
          b.writeShort(0).writeByte(0);
        });
  }
}
