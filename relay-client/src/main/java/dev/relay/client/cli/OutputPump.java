package dev.relay.client.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * Copies one output stream of a command (stdout or stderr) to {@code relay work}'s own, whole lines
 * at a time, and keeps its last bytes when asked (the stderr tail that becomes a NACK's error).
 * Bytes pass through unchanged; a line longer than {@link #LINE_BYTES_MAX} is written in pieces,
 * which may interleave with other commands' lines.
 */
final class OutputPump implements Runnable {
  /** The longest line held back until its newline arrives. */
  static final int LINE_BYTES_MAX = 16 * 1024;

  private static final int READ_BYTES = 8 * 1024;

  private final InputStream in;
  private final LineSink sink;
  private final byte[] pending = new byte[LINE_BYTES_MAX];
  private int pendingLength;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  // A ring of the last tail.length bytes read; guarded by this.
  private final byte[] tail;
  private long tailWritten;

  /** A pump that keeps the last {@code tailBytes} bytes (0 for none). */
  OutputPump(InputStream in, LineSink sink, int tailBytes) {
    this.in = in;
    this.sink = sink;
    this.tail = new byte[tailBytes];
  }

  @Override
  public void run() {
    byte[] buffer = new byte[READ_BYTES];
    try (in) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        keep(buffer, n);
        pass(buffer, n);
      }
    } catch (IOException e) {
      // The pipe broke under a killed command: what was read has been passed on.
    } finally {
      if (pendingLength > 0) {
        sink.write(pending, pendingLength, buffer, 0, 0); // a last line without its newline
      }
      done.complete(null);
    }
  }

  /** Completes when the stream reached its end (every process holding it has closed it). */
  CompletableFuture<Void> done() {
    return done;
  }

  private void pass(byte[] buffer, int n) {
    int lastNewline = -1;
    for (int i = n - 1; i >= 0; i--) {
      if (buffer[i] == '\n') {
        lastNewline = i;
        break;
      }
    }
    int start = 0;
    if (lastNewline >= 0) {
      sink.write(pending, pendingLength, buffer, 0, lastNewline + 1);
      pendingLength = 0;
      start = lastNewline + 1;
    }
    int rest = n - start;
    if (pendingLength + rest > pending.length) {
      sink.write(pending, pendingLength, buffer, start, rest);
      pendingLength = 0;
      return;
    }
    System.arraycopy(buffer, start, pending, pendingLength, rest);
    pendingLength += rest;
  }

  private synchronized void keep(byte[] buffer, int n) {
    if (tail.length == 0) {
      return;
    }
    int from = Math.max(0, n - tail.length);
    for (int i = from; i < n; i++) {
      tail[(int) (tailWritten++ % tail.length)] = buffer[i];
    }
  }

  /**
   * The last bytes read, at most {@code bytesMax}, as text cut on a character boundary at the
   * front, without trailing line breaks; what has arrived so far if the stream is still open.
   */
  synchronized String tailText(int bytesMax) {
    int length = (int) Math.min(Math.min(tailWritten, tail.length), bytesMax);
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = tail[(int) ((tailWritten - length + i) % tail.length)];
    }
    int start = 0;
    while (start < length && (bytes[start] & 0xC0) == 0x80) {
      start++; // the first character was cut in two: drop its remaining bytes
    }
    String text = new String(bytes, start, length - start, StandardCharsets.UTF_8);
    return text.replaceFirst("[\\r\\n]+$", "");
  }
}
