package dev.relay.client.cli;

/** The exit codes of the {@code relay} command, documented in docs/client.md. */
final class ExitCodes {
  /** The request succeeded. */
  static final int OK = 0;

  /** The server refused the request with a non-retryable error code (unknown job, bad state...). */
  static final int REFUSED = 1;

  /** The command line was wrong: unknown option, missing argument, invalid value or file. */
  static final int USAGE = 2;

  /** The server could not be reached, or failed in a way worth retrying (overloaded, timeout). */
  static final int UNAVAILABLE = 3;

  private ExitCodes() {}
}
