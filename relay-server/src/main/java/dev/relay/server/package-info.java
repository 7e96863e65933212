/** The Relay daemon: network front end, durable store and metrics. */
package dev.relay.server;
