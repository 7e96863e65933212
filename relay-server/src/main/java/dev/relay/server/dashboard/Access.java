package dev.relay.server.dashboard;

/** What a dashboard visitor may do: nothing, look, or look and act. */
public enum Access {
  /** Must log in before seeing anything. */
  NONE,
  /** May see every page; every action is refused (403). */
  VIEWER,
  /** May see every page and act (pause, resume, cancel, requeue, purge), with the CSRF token. */
  ADMIN
}
