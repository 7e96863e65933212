package dev.relay.server.store;

/**
 * Always-on checks for conditions that only a bug can break. They throw {@link
 * IllegalStateException}, which stops the writer rather than let it write on a broken invariant.
 */
public final class Invariants {
  private Invariants() {}

  public static void check(boolean condition, String format, Object... args) {
    if (!condition) {
      throw new IllegalStateException("store invariant broken: " + String.format(format, args));
    }
  }
}
