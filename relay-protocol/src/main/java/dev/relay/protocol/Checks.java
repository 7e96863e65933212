package dev.relay.protocol;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Argument checks shared by the message records; each failure names the field, the allowed range
 * and the value.
 */
final class Checks {
  private static final int SURROGATE_PAIR_UTF8_BYTES = 4;

  private Checks() {}

  static long range(String field, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          field + " must be in [" + min + ", " + max + "], was " + value);
    }
    return value;
  }

  static int range(String field, int value, int min, int max) {
    return (int) range(field, (long) value, min, max);
  }

  static long jobId(String field, long value) {
    return range(field, value, ProtocolLimits.JOB_ID_MIN, Long.MAX_VALUE);
  }

  /**
   * Checks that {@code value} encodes to between {@code minBytes} and {@code bytesMax} of UTF-8.
   */
  static String string(String field, String value, int minBytes, int bytesMax) {
    Objects.requireNonNull(value, field);
    int bytes = utf8Bytes(field, value);
    if (bytes < minBytes || bytes > bytesMax) {
      throw new IllegalArgumentException(
          field + " must be " + minBytes + ".." + bytesMax + " bytes of UTF-8, was " + bytes);
    }
    return value;
  }

  static Optional<String> optString(
      String field, Optional<String> value, int minBytes, int bytesMax) {
    Objects.requireNonNull(value, field);
    value.ifPresent(v -> string(field, v, minBytes, bytesMax));
    return value;
  }

  /** A queue name: 1..QUEUE_NAME_BYTES_MAX characters from {@code [A-Za-z0-9._-]}. */
  static String queue(String field, String value) {
    return name(field, value, 1, ProtocolLimits.QUEUE_NAME_BYTES_MAX, false);
  }

  /**
   * A job type: 0..JOB_TYPE_BYTES_MAX characters from {@code [A-Za-z0-9._:-]}; empty is untyped.
   */
  static String jobType(String field, String value) {
    return name(field, value, 0, ProtocolLimits.JOB_TYPE_BYTES_MAX, true);
  }

  /**
   * An ASCII name of {@code minBytes..bytesMax} characters from {@code [A-Za-z0-9._-]}, plus {@code
   * :} when {@code colon} is set.
   */
  static String name(String field, String value, int minBytes, int bytesMax, boolean colon) {
    string(field, value, minBytes, bytesMax);
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (!isQueueChar(c) && !(colon && c == ':')) {
        throw new IllegalArgumentException(
            field
                + " may hold only [A-Za-z0-9._"
                + (colon ? ":" : "")
                + "-], was \""
                + value
                + "\"");
      }
    }
    return value;
  }

  /**
   * A backup file name: empty (the server chooses one) or 1..BACKUP_NAME_BYTES_MAX characters
   * matching {@code [A-Za-z0-9][A-Za-z0-9._-]*}. No separators and no leading dot, so it can name
   * neither another directory ({@code ..}, {@code /}) nor a hidden file.
   */
  static String backupName(String field, String value, boolean emptyAllowed) {
    string(field, value, emptyAllowed ? 0 : 1, ProtocolLimits.BACKUP_NAME_BYTES_MAX);
    if (value.isEmpty()) {
      return value;
    }
    char first = value.charAt(0);
    boolean valid = first != '.' && first != '_' && first != '-';
    for (int i = 0; valid && i < value.length(); i++) {
      valid = isQueueChar(value.charAt(i));
    }
    if (!valid) {
      throw new IllegalArgumentException(
          field
              + " must be a plain file name from [A-Za-z0-9][A-Za-z0-9._-]*, was \""
              + value
              + "\"");
    }
    return value;
  }

  static <T> List<T> list(String field, List<T> value, int minSize, int sizeMax) {
    List<T> copy = List.copyOf(Objects.requireNonNull(value, field));
    if (copy.size() < minSize || copy.size() > sizeMax) {
      throw new IllegalArgumentException(
          field + " must hold " + minSize + ".." + sizeMax + " elements, was " + copy.size());
    }
    return copy;
  }

  private static boolean isQueueChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '.'
        || c == '_'
        || c == '-';
  }

  /**
   * The UTF-8 length of {@code value}. A lone surrogate has no UTF-8 form ({@code getBytes} would
   * silently write '?'), so it is rejected rather than sent as something else.
   */
  static int utf8Bytes(String field, String value) {
    int bytes = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        bytes += SURROGATE_PAIR_UTF8_BYTES;
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(field + " holds an unpaired surrogate at index " + i);
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
