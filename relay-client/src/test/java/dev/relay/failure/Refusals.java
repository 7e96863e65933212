package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.client.RelayClient;
import dev.relay.client.RelayException;
import dev.relay.protocol.ErrorCode;
import java.util.concurrent.CompletableFuture;

/** Asserts that the server refused a request with one exact error code. */
final class Refusals {
  private Refusals() {}

  static void assertRefused(ErrorCode expected, CompletableFuture<?> request) {
    assertThatThrownBy(() -> RelayClient.await(request))
        .isInstanceOfSatisfying(
            RelayException.class,
            e -> {
              if (e.code() != expected) {
                throw new AssertionError("expected " + expected + " but was " + e, e);
              }
            });
  }
}
