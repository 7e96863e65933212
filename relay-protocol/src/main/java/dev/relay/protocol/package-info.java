/** The Relay wire protocol: frames, messages, codec, limits and error codes. */
package dev.relay.protocol;
