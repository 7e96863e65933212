/**
 * The web dashboard: a small HTTP listener of its own serving server-rendered pages of the queues,
 * jobs, dead jobs and the server, and the operator's actions, all through {@link
 * dev.relay.server.store.JobStore}'s public calls. See docs/dashboard.md.
 */
package dev.relay.server.dashboard;
