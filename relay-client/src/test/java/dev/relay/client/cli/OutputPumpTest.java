package dev.relay.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.ProtocolLimits;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A command's output passes through unchanged, whole lines per write, with its tail kept. */
final class OutputPumpTest {
  /** Records each write separately, to see where lines were split. */
  private static final class Writes extends ByteArrayOutputStream {
    final List<String> writes = new ArrayList<>();
    private final StringBuilder current = new StringBuilder();

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      super.write(b, off, len);
      current.append(new String(b, off, len, StandardCharsets.UTF_8));
    }

    @Override
    public synchronized void flush() {
      writes.add(current.toString());
      current.setLength(0);
    }
  }

  /** Hands out its bytes in the given pieces, as a pipe does. */
  private static InputStream pieces(String... parts) {
    List<byte[]> chunks = new ArrayList<>();
    for (String part : parts) {
      chunks.add(part.getBytes(StandardCharsets.UTF_8));
    }
    return new InputStream() {
      private int index;

      @Override
      public int read() throws IOException {
        throw new UnsupportedOperationException();
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (index == chunks.size()) {
          return -1;
        }
        byte[] chunk = chunks.get(index++);
        System.arraycopy(chunk, 0, b, off, chunk.length);
        return chunk.length;
      }
    };
  }

  @Test
  void lines_split_across_reads_are_written_whole() {
    Writes out = new Writes();
    OutputPump pump = new OutputPump(pieces("one\ntw", "o\nthr", "ee"), new LineSink(out), 0);

    pump.run();

    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("one\ntwo\nthree");
    assertThat(out.writes).containsExactly("one\n", "two\n", "three");
    assertThat(pump.done()).isDone();
  }

  @Test
  void a_line_longer_than_the_cap_is_written_in_pieces_without_losing_bytes() {
    Writes out = new Writes();
    String longLine = "x".repeat(OutputPump.LINE_BYTES_MAX + 10);
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < longLine.length(); i += 4000) {
      parts.add(longLine.substring(i, Math.min(longLine.length(), i + 4000)));
    }
    parts.add("\n");

    new OutputPump(pieces(parts.toArray(String[]::new)), new LineSink(out), 0).run();

    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(longLine + "\n");
    assertThat(out.writes).allSatisfy(w -> assertThat(w.length()).isLessThanOrEqualTo(20_000));
  }

  @Test
  void the_tail_keeps_the_last_bytes_cut_on_a_character_boundary() {
    String text = "é".repeat(3000) + "end\n"; // 6004 bytes; 'é' is two
    OutputPump pump =
        new OutputPump(
            new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
            new LineSink(new ByteArrayOutputStream()),
            4096);

    pump.run();

    assertThat(pump.tailText(4096)).isEqualTo("é".repeat(2046) + "end");
    assertThat(pump.tailText(5)).isEqualTo("end"); // the last byte of an 'é' is dropped
    assertThat(pump.tailText(6)).isEqualTo("éend");
  }

  @Test
  void the_error_text_is_the_reason_alone_when_stderr_was_empty_and_fits_the_cap_otherwise() {
    OutputPump empty =
        new OutputPump(
            new ByteArrayInputStream(new byte[0]), new LineSink(new ByteArrayOutputStream()), 4096);
    OutputPump full =
        new OutputPump(
            new ByteArrayInputStream("y".repeat(5000).getBytes(StandardCharsets.UTF_8)),
            new LineSink(new ByteArrayOutputStream()),
            4096);
    empty.run();
    full.run();

    assertThat(CommandHandler.errorText("exit 3", empty)).isEqualTo("exit 3");
    assertThat(CommandHandler.errorText("exit 3", full))
        .startsWith("exit 3: yyy")
        .hasSize(ProtocolLimits.ERROR_TEXT_BYTES_MAX);
  }
}
