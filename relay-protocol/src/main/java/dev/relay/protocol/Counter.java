package dev.relay.protocol;

/**
 * One named server counter in STATS_RESULT, such as {@code enqueued} or {@code commits}.
 *
 * @param name 1..{@link ProtocolLimits#COUNTER_NAME_BYTES_MAX} bytes of UTF-8
 * @param value any i64
 */
public record Counter(String name, long value) {
  /** Encoded size of the largest counter, in bytes. */
  static final int ENCODED_BYTES_MAX =
      WireSize.string(ProtocolLimits.COUNTER_NAME_BYTES_MAX) + WireSize.I64;

  public Counter {
    Checks.string("name", name, 1, ProtocolLimits.COUNTER_NAME_BYTES_MAX);
  }
}
