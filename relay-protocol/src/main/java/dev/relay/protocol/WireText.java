package dev.relay.protocol;

/**
 * Fits free text (an exception message, a NACK reason) into a string field's byte cap, so a long or
 * odd message never turns an answer into a local error.
 */
public final class WireText {
  private static final char REPLACEMENT = '\uFFFD';

  private WireText() {}

  /**
   * {@code text} cut to at most {@code bytesMax} bytes of UTF-8 on a code point boundary, with
   * unpaired surrogates (which have no UTF-8 form) replaced by U+FFFD.
   */
  public static String fit(String text, int bytesMax) {
    Checks.range("bytesMax", bytesMax, 0, ProtocolLimits.U16_MAX);
    StringBuilder out = new StringBuilder(Math.min(text.length(), bytesMax));
    int bytes = 0;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (cp <= Character.MAX_VALUE && Character.isSurrogate((char) cp)) {
        cp = REPLACEMENT;
      }
      int cpBytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp <= Character.MAX_VALUE ? 3 : 4;
      if (bytes + cpBytes > bytesMax) {
        break;
      }
      bytes += cpBytes;
      out.appendCodePoint(cp);
    }
    return out.toString();
  }
}
