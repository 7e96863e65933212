package dev.relay.protocol;

/**
 * The wire's rules for queue names and job types, public so the store applies the same rule to its
 * direct callers: one definition, counted in UTF-8 bytes (the names are ASCII, so bytes are chars).
 */
public final class Names {
  private Names() {}

  /**
   * {@code value} if it is a queue name: 1..{@link ProtocolLimits#QUEUE_NAME_BYTES_MAX} bytes from
   * {@code [A-Za-z0-9._-]}; an {@link IllegalArgumentException} naming {@code field} otherwise.
   */
  public static String queue(String field, String value) {
    return Checks.queue(field, value);
  }

  /**
   * {@code value} if it is a job type: 0..{@link ProtocolLimits#JOB_TYPE_BYTES_MAX} bytes from
   * {@code [A-Za-z0-9._:-]} (empty is untyped); an {@link IllegalArgumentException} otherwise.
   */
  public static String jobType(String field, String value) {
    return Checks.jobType(field, value);
  }
}
