package dev.relay.client;

import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.WireText;

/**
 * A handler failure as the job's last error: the exception, its first stack frames and its causes,
 * cut to the protocol's error-text cap, so {@code relay inspect} shows where the job failed.
 */
final class FailureText {
  /** Frames kept per exception in the chain; the rest are summarised as "... N more". */
  static final int FRAMES_PER_CAUSE_MAX = 12;

  /** Causes followed, so a cyclic or very deep chain stays bounded. */
  static final int CAUSES_MAX = 4;

  private FailureText() {}

  /** {@code t} and its causes with their first frames, at most the protocol's error-text bytes. */
  static String of(Throwable t) {
    StringBuilder text = new StringBuilder();
    Throwable current = t;
    for (int depth = 0; current != null && depth <= CAUSES_MAX; depth++) {
      if (depth > 0) {
        text.append("\nCaused by: ");
      }
      text.append(current);
      StackTraceElement[] frames = current.getStackTrace();
      int shown = Math.min(frames.length, FRAMES_PER_CAUSE_MAX);
      for (int i = 0; i < shown; i++) {
        text.append("\n\tat ").append(frames[i]);
      }
      if (frames.length > shown) {
        text.append("\n\t... ").append(frames.length - shown).append(" more");
      }
      if (text.length() > ProtocolLimits.ERROR_TEXT_BYTES_MAX) {
        break; // already over the cap in characters, so over it in bytes too
      }
      current = current.getCause() == current ? null : current.getCause();
    }
    return WireText.fit(text.toString(), ProtocolLimits.ERROR_TEXT_BYTES_MAX);
  }
}
