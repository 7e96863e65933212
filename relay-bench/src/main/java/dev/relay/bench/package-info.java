/** The Relay benchmark harness. */
package dev.relay.bench;
