/**
 * The Relay wire protocol: frames, messages, codec, limits and error codes.
 *
 * <p>A peer puts {@link dev.relay.protocol.FrameDecoder} and {@link
 * dev.relay.protocol.FrameEncoder} in its Netty pipeline and exchanges {@link
 * dev.relay.protocol.Frame}s, each holding one {@link dev.relay.protocol.Request} or {@link
 * dev.relay.protocol.Response} record. {@link dev.relay.protocol.FrameCodec} does the same work on
 * plain buffers. The wire limits are in {@link dev.relay.protocol.ProtocolLimits}; the byte layout
 * is specified in docs/protocol.md.
 */
package dev.relay.protocol;
