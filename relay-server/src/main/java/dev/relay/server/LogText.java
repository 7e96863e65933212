package dev.relay.server;

/**
 * Makes text a client sent safe to put in a log line: one log record stays one line, whatever the
 * client chose to send.
 *
 * <p>A queue name, error text, idempotency key or client name holding a line break could otherwise
 * forge a whole log record ("\n2025-01-01T00:00:00Z ERROR ..."), and control bytes could rewrite
 * what a terminal shows. {@link #escape(String)} backslash-escapes every character that can do
 * either, escapes the backslash itself so an escape cannot be faked, and caps the length so a 4 KiB
 * NACK reason cannot flood the log.
 */
public final class LogText {
  /** Characters of client text kept in one log value; the rest is counted, not shown. */
  public static final int CHARS_MAX = 256;

  /** Causes of one failure copied for a log record; deeper ones are left out. */
  static final int CAUSES_MAX = 8;

  private LogText() {}

  /**
   * {@code text} with backslash, C0 and C1 controls, DEL, the Unicode line and paragraph separators
   * and the bidirectional overrides escaped ({@code \n}, {@code \r}, {@code \t}, {@code \\}, else
   * {@code \}{@code uXXXX}), cut after {@link #CHARS_MAX} characters with {@code ...(N more)};
   * {@code "null"} for null.
   */
  public static String escape(String text) {
    if (text == null) {
      return "null";
    }
    int shown = Math.min(text.length(), CHARS_MAX);
    StringBuilder out = new StringBuilder(shown + 16);
    for (int i = 0; i < shown; i++) {
      append(out, text.charAt(i));
    }
    if (text.length() > shown) {
      out.append("...(").append(text.length() - shown).append(" more)");
    }
    return out.toString();
  }

  /**
   * A copy of {@code failure} to hand a logger instead of the original: each message in its cause
   * chain (the first {@link #CAUSES_MAX}) {@linkplain #escape(String) escaped} behind its class
   * name, each stack trace kept. An unexpected exception's message may quote what a client sent.
   */
  public static Throwable escapeFailure(Throwable failure) {
    return copy(failure, CAUSES_MAX);
  }

  private static Throwable copy(Throwable failure, int causesLeft) {
    Throwable cause = failure.getCause();
    Throwable causeCopy =
        cause != null && cause != failure && causesLeft > 0 ? copy(cause, causesLeft - 1) : null;
    String name = failure.getClass().getName();
    String message = failure.getMessage();
    LoggedFailure copy =
        new LoggedFailure(message == null ? name : name + ": " + escape(message), causeCopy);
    copy.setStackTrace(failure.getStackTrace());
    return copy;
  }

  /** The logged stand-in of a failure; its message starts with the original's class name. */
  static final class LoggedFailure extends Exception {
    private static final long serialVersionUID = 1L;

    LoggedFailure(String message, Throwable cause) {
      super(message, cause, false, true);
    }
  }

  private static void append(StringBuilder out, char c) {
    switch (c) {
      case '\\' -> out.append("\\\\");
      case '\n' -> out.append("\\n");
      case '\r' -> out.append("\\r");
      case '\t' -> out.append("\\t");
      default -> {
        if (needsEscape(c)) {
          out.append(String.format("\\u%04X", (int) c));
        } else {
          out.append(c);
        }
      }
    }
  }

  private static boolean needsEscape(char c) {
    return c < 0x20 // C0 controls, NUL included
        || (c >= 0x7F && c <= 0x9F) // DEL and the C1 controls (NEL U+0085 breaks lines)
        || c == '\u2028' // line separator
        || c == '\u2029' // paragraph separator
        || (c >= '\u202A' && c <= '\u202E') // bidi embeddings and overrides
        || (c >= '\u2066' && c <= '\u2069') // bidi isolates
        || c == '\u200E'
        || c == '\u200F';
  }
}
