package dev.relay.client.cli;

import dev.relay.protocol.PayloadPart;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How {@code relay inspect --payload} shows a payload: as text when it is valid UTF-8 (control
 * characters other than newline and tab escaped, so a payload cannot move the cursor or forge
 * terminal output), else as a hex dump, with a note saying which and whether it was cut.
 */
final class PayloadView {
  /** What the operator asked for. */
  enum Mode {
    /** Text when the bytes are UTF-8, hex otherwise. */
    AUTO,
    TEXT,
    HEX
  }

  private static final int HEX_LINE_BYTES = 16;

  /**
   * Longest UTF-8 sequence minus one: the most bytes a cut can leave of an unfinished character.
   */
  private static final int UTF8_TAIL_BYTES_MAX = 3;

  private final PayloadPart part;
  private final Mode mode;
  private final Optional<String> text;

  private PayloadView(PayloadPart part, Mode mode) {
    this.part = part;
    this.mode = mode;
    this.text = mode == Mode.HEX ? Optional.empty() : utf8(part);
  }

  static PayloadView of(PayloadPart part, Mode mode) {
    return new PayloadView(part, mode);
  }

  /** The note line and the payload as shown. */
  String text() {
    String note = note();
    String body = text.map(PayloadView::escaped).orElseGet(this::hexDump);
    return body.isEmpty() ? note : note + "\n" + body;
  }

  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("encoding", text.isPresent() ? "text" : "hex");
    // JSON escapes control characters itself: the text is given as decoded.
    m.put("data", text.orElseGet(() -> HexFormat.of().formatHex(part.start().toBytes())));
    m.put("shownBytes", part.start().size());
    m.put("payloadBytes", part.payloadBytes());
    m.put("truncated", part.truncated());
    m.put("note", note());
    return m;
  }

  private String note() {
    StringBuilder note = new StringBuilder("payload: ");
    if (part.truncated()) {
      note.append(
          String.format(
              Locale.ROOT, "truncated, %d of %d bytes", part.start().size(), part.payloadBytes()));
    } else {
      note.append(part.payloadBytes()).append(" bytes");
    }
    if (text.isPresent()) {
      note.append(", UTF-8 text");
    } else if (mode == Mode.HEX) {
      note.append(", hex");
    } else {
      note.append(", hex (not valid UTF-8)");
    }
    if (part.truncated()) {
      note.append("; --payload-bytes-max shows more");
    }
    return note.toString();
  }

  /**
   * The bytes as UTF-8, or empty when they are not. A cut payload may end inside a character: up to
   * three trailing bytes may then be left out.
   */
  private static Optional<String> utf8(PayloadPart part) {
    byte[] bytes = part.start().toBytes();
    int dropMax = part.truncated() ? Math.min(UTF8_TAIL_BYTES_MAX, bytes.length) : 0;
    for (int drop = 0; drop <= dropMax; drop++) {
      CharsetDecoder decoder =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT);
      try {
        CharBuffer chars = decoder.decode(ByteBuffer.wrap(bytes, 0, bytes.length - drop));
        return Optional.of(chars.toString());
      } catch (CharacterCodingException e) {
        // not UTF-8 up to here; a cut character is tried without its last byte next
      }
    }
    return Optional.empty();
  }

  /** Control characters but newline and tab become backslash-u escapes. */
  static String escaped(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isISOControl(c) && c != '\n' && c != '\t') {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** Sixteen bytes a line, each line led by its offset in hex. */
  private String hexDump() {
    byte[] bytes = part.start().toBytes();
    HexFormat hex = HexFormat.ofDelimiter(" ");
    StringBuilder out = new StringBuilder();
    for (int offset = 0; offset < bytes.length; offset += HEX_LINE_BYTES) {
      int end = Math.min(bytes.length, offset + HEX_LINE_BYTES);
      if (offset > 0) {
        out.append('\n');
      }
      out.append(String.format(Locale.ROOT, "%08x  ", offset))
          .append(hex.formatHex(bytes, offset, end));
    }
    return out.toString();
  }
}
