package dev.relay.server.store;

/**
 * The start of one job's payload, as INSPECT_PAYLOAD sends it.
 *
 * @param payloadBytes the size of the whole payload
 * @param start its first bytes, at most as many as were asked for
 */
public record PayloadStart(int payloadBytes, byte[] start) {}
