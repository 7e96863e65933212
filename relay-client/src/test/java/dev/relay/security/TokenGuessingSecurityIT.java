package dev.relay.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.RelayClient;
import dev.relay.failure.RawConnection;
import dev.relay.failure.ServerProcess;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.Hello;
import dev.relay.protocol.ProtocolLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Guessing the token over the network, against a real server process.
 *
 * <p>Attack: a peer opens eight connections at once and sends a HELLO with a different guessed
 * token on each, then opens more; a server that answered UNAUTHORIZED at once would let it try
 * thousands of tokens a second, and an operator who wrote a short word into the token file would be
 * found quickly. Expected: a token file under 16 bytes refuses to start (exit 2) with a message
 * that names the file and how to make a token, and never the token; every wrong guess is answered
 * only after {@code --auth-failure-delay}, while a client with the right token is welcomed and
 * served at once; the server's log says that HELLOs were refused with the peer's address, in one
 * rate-limited line, and never what was guessed.
 */
class TokenGuessingSecurityIT {
  static final int GUESSES = 8;
  static final Duration DELAY = Duration.ofSeconds(3);

  @TempDir Path dir;

  @Test
  void a_short_token_file_refuses_to_start_without_printing_the_token() throws Exception {
    Path token = Tokens.file(dir, "short.token", "letmein");
    ServerProcess.Refusal refusal =
        ServerProcess.startRefused(
            Files.createDirectories(dir.resolve("short")), "--auth-token-file", token.toString());

    assertThat(refusal.exitCode()).isEqualTo(2);
    assertThat(refusal.log())
        .contains(token.toString(), "at least 16 bytes, was 7", "head -c 32 /dev/urandom | base64")
        .doesNotContain("letmein");
  }

  @Test
  void each_wrong_guess_waits_for_the_failure_delay_while_the_right_token_is_served_at_once()
      throws Exception {
    Path token = Tokens.file(dir, "worker.token", Tokens.WORKER);
    try (ServerProcess server =
        ServerProcess.start(
            Files.createDirectories(dir.resolve("data")),
            "--auth-token-file",
            token.toString(),
            "--auth-failure-delay",
            "3s")) {
      List<RawConnection> guesses = new ArrayList<>();
      try {
        long sent = System.nanoTime();
        for (int i = 0; i < GUESSES; i++) {
          RawConnection c = RawConnection.open(server.port());
          guesses.add(c);
          c.write(RawConnection.encode(new Frame(1, hello("guess-" + i + "-" + Tokens.WORKER))));
        }
        try (RelayClient client =
            RelayClient.connect(server.clientOptions().authToken(Tokens.WORKER).build())) {
          client.enqueue("q", new byte[] {1}).get();
        }
        Duration served = Duration.ofNanos(System.nanoTime() - sent);

        for (RawConnection c : guesses) {
          Frame answer = c.read().orElseThrow(() -> new AssertionError("closed unanswered"));
          assertThat(((ErrorResponse) answer.message()).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
          c.awaitClosed();
        }
        Duration answered = Duration.ofNanos(System.nanoTime() - sent);

        assertThat(answered).isGreaterThanOrEqualTo(DELAY);
        assertThat(served).isLessThan(answered);
      } finally {
        for (RawConnection c : guesses) {
          c.close();
        }
      }

      String log = server.log();
      List<String> refusals =
          log.lines().filter(l -> l.contains("missing or wrong auth token")).toList();
      // The first refusal logs at once; the other seven are counted into the next line, which
      // comes at most once per 10 s.
      assertThat(refusals)
          .hasSize(1)
          .allSatisfy(l -> assertThat(l).contains(" WARN ", "127.0.0.1", "after 3s"));
      assertThat(log).doesNotContain("guess-");
    }
  }

  private static Hello hello(String token) {
    return new Hello(ProtocolLimits.PROTOCOL_VERSION, "guesser", Optional.of(token));
  }
}
