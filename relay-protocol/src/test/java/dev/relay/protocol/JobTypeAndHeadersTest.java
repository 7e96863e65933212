package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A job's type and headers: each limit holds at its value and is rejected one past it. */
class JobTypeAndHeadersTest {
  private static JobSpec spec(String type, List<Header> headers) {
    return new JobSpec(
        "q", Payload.EMPTY, 0, ScheduleKind.NOW, 0, 0, Optional.empty(), type, headers);
  }

  @Test
  void a_type_of_the_largest_length_is_accepted_and_one_more_byte_is_rejected() {
    String atLimit = "t".repeat(ProtocolLimits.JOB_TYPE_BYTES_MAX);
    assertThat(spec(atLimit, List.of()).type()).isEqualTo(atLimit);
    assertThatThrownBy(() -> spec(atLimit + "t", List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("type");
  }

  @Test
  void a_type_may_hold_colons_dots_dashes_and_underscores_but_not_spaces() {
    assertThat(spec("billing:invoice.v2-x_y", List.of()).type())
        .isEqualTo("billing:invoice.v2-x_y");
    assertThatThrownBy(() -> spec("email send", List.of()))
        .hasMessageContaining("type may hold only [A-Za-z0-9._:-]");
  }

  @Test
  void the_most_headers_are_accepted_and_one_more_is_rejected() {
    List<Header> most = Samples.mostHeaders();
    assertThat(spec("", most).headers()).hasSize(ProtocolLimits.HEADERS_MAX);
    List<Header> tooMany = new ArrayList<>(most);
    tooMany.add(new Header("one-more", ""));
    assertThatThrownBy(() -> spec("", tooMany)).hasMessageContaining("headers must hold 0..32");
  }

  @Test
  void headers_of_exactly_the_byte_cap_are_accepted_and_one_byte_more_is_rejected() {
    List<Header> largest = Samples.largestHeaders();
    assertThat(Headers.encodedSize(largest)).isEqualTo(ProtocolLimits.HEADERS_BYTES_MAX);
    assertThat(spec("", largest).headers()).isEqualTo(largest);
    List<Header> over = new ArrayList<>(largest);
    Header last = over.remove(over.size() - 1);
    over.add(new Header(last.name(), last.value() + "v"));
    assertThatThrownBy(() -> spec("", over))
        .hasMessageContaining("must encode to at most 8192 bytes, was 8193");
  }

  @Test
  void header_names_and_values_are_checked_at_and_one_past_their_caps() {
    String name = "n".repeat(ProtocolLimits.HEADER_NAME_BYTES_MAX);
    String value = "v".repeat(ProtocolLimits.HEADER_VALUE_BYTES_MAX);
    assertThat(new Header(name, value).name()).isEqualTo(name);
    assertThatThrownBy(() -> new Header(name + "n", "")).hasMessageContaining("header name");
    assertThatThrownBy(() -> new Header("n", value + "v")).hasMessageContaining("header value");
    assertThatThrownBy(() -> new Header("", "")).hasMessageContaining("header name");
    assertThatThrownBy(() -> new Header("a:b", "")).hasMessageContaining("header name");
  }

  @Test
  void a_header_named_twice_is_rejected_but_names_differing_in_case_are_distinct() {
    assertThatThrownBy(() -> spec("", List.of(new Header("a", "1"), new Header("a", "2"))))
        .hasMessageContaining("\"a\" appears twice");
    assertThat(spec("", List.of(new Header("a", "1"), new Header("A", "2"))).headers()).hasSize(2);
  }

  @Test
  void headers_keep_their_order_through_the_stored_form() {
    List<Header> headers =
        List.of(new Header("z", "last ü"), new Header("a", ""), new Header("m", "x"));
    byte[] bytes = Headers.toBytes(headers);
    assertThat(bytes).hasSize(Headers.encodedSize(headers));
    assertThat(Headers.fromBytes(bytes)).containsExactlyElementsOf(headers);
    assertThat(Headers.fromBytes(Headers.toBytes(List.of()))).isEmpty();
  }

  @Test
  void a_truncated_stored_header_list_is_rejected() {
    byte[] bytes = Headers.toBytes(List.of(new Header("a", "value")));
    byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 1);
    assertThatThrownBy(() -> Headers.fromBytes(cut)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void encoded_sizes_match_the_bytes_written_for_typed_jobs_with_headers() {
    for (JobSpec spec : List.of(Samples.jobSpec(), Samples.largestJobSpec())) {
      ByteBuf out = Unpooled.buffer();
      try {
        ValueCodec.writeJobSpec(out, spec);
        assertThat(out.readableBytes()).isEqualTo(spec.encodedSize());
      } finally {
        out.release();
      }
    }
    assertThat(Samples.largestJobSpec().encodedSize())
        .isEqualTo(JobSpec.encodedSizeMax(ProtocolLimits.PAYLOAD_BYTES_MAX));
    LeasedJob leased = Samples.leasedJob();
    ByteBuf out = Unpooled.buffer();
    try {
      ValueCodec.writeLeasedJob(out, leased);
      assertThat(out.readableBytes()).isEqualTo(leased.encodedSize());
      out.clear();
      ValueCodec.writeJobInfo(out, Samples.jobInfo());
      assertThat(out.readableBytes()).isEqualTo(Samples.jobInfo().encodedSize());
    } finally {
      out.release();
    }
  }
}
