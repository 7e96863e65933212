/**
 * The durable store: one SQLite file, one writer thread with group commit, fenced leases.
 *
 * <p>{@link dev.relay.server.store.JobStore} is the entry point and {@link
 * dev.relay.server.store.SqliteStore} its SQLite implementation. Every state change is one durable
 * SQLite transaction run by the single writer thread; reads that need no write run on separate
 * read-only connections. docs/architecture.md explains the schema, the state machine and why.
 */
package dev.relay.server.store;
