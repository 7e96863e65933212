/** The Relay client library, pull workers and the admin CLI. */
package dev.relay.client;
