package dev.relay.server.dashboard;

import java.util.List;
import java.util.Map;

/**
 * One dashboard request as the pages and actions see it: its path, its query or form parameters,
 * who asks, and the notice to show (from an action's redirect).
 */
record Call(String path, Map<String, List<String>> params, Visitor visitor, String notice) {
  /** A parameter the request could not be served with; answered 400 with its message. */
  static final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message, null, false, false);
    }
  }

  Call {
    params = Map.copyOf(params);
  }

  /** The parameter's first value, or "" when absent. */
  String param(String name) {
    List<String> values = params.get(name);
    return values == null || values.isEmpty() ? "" : values.get(0);
  }

  /** The parameter as a number at least {@code min}, {@code absent} when missing. */
  long number(String name, long absent, long min) {
    String text = param(name);
    if (text.isEmpty()) {
      return absent;
    }
    try {
      long n = Long.parseLong(text);
      if (n >= min) {
        return n;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new BadRequest(name + " must be a whole number of at least " + min);
  }

  /** A parameter that must be present and not blank. */
  String required(String name) {
    String value = param(name);
    if (value.isBlank()) {
      throw new BadRequest(name + " is required");
    }
    return value;
  }
}
