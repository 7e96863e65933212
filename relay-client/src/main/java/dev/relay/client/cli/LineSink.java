package dev.relay.client.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * One of {@code relay work}'s own output streams (stdout or stderr), shared by every running
 * command and by its own messages: each write holds one lock and carries whole lines, so lines from
 * concurrent commands do not interleave mid-line.
 */
final class LineSink {
  private final OutputStream out;

  LineSink(OutputStream out) {
    this.out = out;
  }

  /** Writes {@code first[0, firstLength)} then {@code second[offset, offset + length)} as one. */
  synchronized void write(byte[] first, int firstLength, byte[] second, int offset, int length) {
    try {
      out.write(first, 0, firstLength);
      out.write(second, offset, length);
      out.flush();
    } catch (IOException e) {
      // relay work's own output is closed (a reader at the end of a pipe went away): the command's
      // output is lost, but not the job's outcome, which does not depend on it.
    }
  }

  /** Writes one line of relay work's own, with its newline. */
  void line(String text) {
    byte[] bytes = (text + "\n").getBytes(StandardCharsets.UTF_8);
    write(bytes, bytes.length, bytes, 0, 0);
  }
}
