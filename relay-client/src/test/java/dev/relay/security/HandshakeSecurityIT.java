package dev.relay.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.failure.RawConnection;
import dev.relay.failure.ServerProcess;
import dev.relay.protocol.Backup;
import dev.relay.protocol.Cancel;
import dev.relay.protocol.DeadRequeue;
import dev.relay.protocol.DeleteQueue;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.Hello;
import dev.relay.protocol.Message;
import dev.relay.protocol.Pause;
import dev.relay.protocol.Principal;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Request;
import dev.relay.protocol.Resume;
import dev.relay.protocol.Stats;
import dev.relay.protocol.StatsResult;
import dev.relay.protocol.Welcome;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, points 1 (least privilege) and 2 (nothing big before WELCOME), against a real server
 * process over raw sockets.
 *
 * <p>Attack: an anonymous peer announces a frame far larger than any HELLO (up to the 1 MiB frame
 * cap) so the server buffers it before knowing who is speaking; a producer or worker holding the
 * ordinary token sends BACKUP, PAUSE, RESUME, CANCEL or DEAD_REQUEUE. Expected: before WELCOME a
 * length prefix over {@link ProtocolLimits#HELLO_FRAME_BYTES_MAX} is answered FRAME_TOO_LARGE and
 * the connection closed without its body being read, while the largest legal HELLO is welcomed;
 * WELCOME names the principal the token earned; a worker gets FORBIDDEN (not retryable) for every
 * admin request and its connection stays usable; the admin token may send them all; a server
 * without tokens lets everything through as before; a server whose two token files hold the same
 * secret refuses to start.
 */
class HandshakeSecurityIT {
  /** Longest token the protocol allows, so the largest HELLO is exactly the pre-WELCOME cap. */
  static final String LONG_WORKER_TOKEN = "w".repeat(ProtocolLimits.AUTH_TOKEN_BYTES_MAX);

  @TempDir static Path dir;

  static ServerProcess server;

  @BeforeAll
  static void start() throws IOException {
    server =
        ServerProcess.start(
            Files.createDirectories(dir.resolve("both")),
            "--auth-token-file",
            Tokens.file(dir, "worker.token", LONG_WORKER_TOKEN).toString(),
            "--admin-token-file",
            Tokens.file(dir, "admin.token", Tokens.ADMIN).toString());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /**
   * One of each admin request. What the admin is answered does not matter here (BACKUP, say, gets
   * INVALID_STATE on a server without --backup-dir), only that it is never FORBIDDEN.
   */
  static List<Request> adminRequests() {
    return List.of(
        new Pause("sec-q"),
        new Resume("sec-q"),
        new Cancel(1),
        new DeadRequeue("sec-q", DeadRequeue.ALL_JOBS),
        new Backup("handshake-test.db"),
        new DeleteQueue("sec-q"));
  }

  static Frame call(RawConnection c, int requestId, Request request) throws IOException {
    c.write(RawConnection.encode(new Frame(requestId, request)));
    Frame answer = c.read().orElseThrow(() -> new AssertionError("closed instead of answering"));
    assertThat(answer.requestId()).isEqualTo(requestId);
    return answer;
  }

  static Welcome hello(RawConnection c, String clientName, Optional<String> token)
      throws IOException {
    Message m = call(c, 1, new Hello(ProtocolLimits.PROTOCOL_VERSION, clientName, token)).message();
    assertThat(m).isInstanceOf(Welcome.class);
    return (Welcome) m;
  }

  @Test
  void a_length_prefix_over_the_largest_hello_before_welcome_is_refused_and_closed()
      throws Exception {
    for (int length :
        new int[] {
          ProtocolLimits.HELLO_FRAME_BYTES_MAX + 1, 1025, ProtocolLimits.FRAME_BYTES_MAX
        }) {
      try (RawConnection c = RawConnection.open(server.port())) {
        // Only the prefix: the old server waited for the body, buffering up to the 1 MiB cap.
        c.write(ByteBuffer.allocate(4).putInt(length).array());

        Frame answer = c.read().orElseThrow(() -> new AssertionError("closed without an error"));
        assertThat(((ErrorResponse) answer.message()).code())
            .as("answer to a prefix of %d bytes", length)
            .isEqualTo(ErrorCode.FRAME_TOO_LARGE);
        c.awaitClosed();
      }
    }
  }

  @Test
  void the_largest_legal_hello_is_exactly_the_cap_and_is_welcomed_as_worker() throws Exception {
    try (RawConnection c = RawConnection.open(server.port())) {
      Welcome w =
          hello(
              c, "n".repeat(ProtocolLimits.CLIENT_NAME_BYTES_MAX), Optional.of(LONG_WORKER_TOKEN));

      assertThat(w.principal()).isEqualTo(Principal.WORKER);
      // After WELCOME the full frame cap applies again.
      assertThat(call(c, 2, new Stats()).message()).isInstanceOf(StatsResult.class);
    }
  }

  @Test
  void a_worker_gets_forbidden_for_every_admin_request_and_its_connection_stays_usable()
      throws Exception {
    try (RawConnection c = RawConnection.open(server.port())) {
      hello(c, "worker", Optional.of(LONG_WORKER_TOKEN));
      int id = 10;
      for (Request request : adminRequests()) {
        Message answer = call(c, id++, request).message();
        assertThat(answer).as("answer to %s", request.opcode()).isInstanceOf(ErrorResponse.class);
        ErrorResponse error = (ErrorResponse) answer;
        assertThat(error.code()).as("code for %s", request.opcode()).isEqualTo(ErrorCode.FORBIDDEN);
        assertThat(error.retryable()).isFalse();
        assertThat(error.message()).contains(request.opcode().name(), "admin token");
      }
      assertThat(call(c, id, new Stats()).message()).isInstanceOf(StatsResult.class);
    }
  }

  @Test
  void the_admin_token_may_send_every_admin_request() throws Exception {
    try (RawConnection c = RawConnection.open(server.port())) {
      assertThat(hello(c, "operator", Optional.of(Tokens.ADMIN)).principal())
          .isEqualTo(Principal.ADMIN);
      assertNoneForbidden(c, adminRequests());
    }
  }

  @Test
  void a_missing_or_wrong_token_is_unauthorized_even_with_an_admin_token_configured()
      throws Exception {
    for (Optional<String> token : List.of(Optional.<String>empty(), Optional.of("guess"))) {
      try (RawConnection c = RawConnection.open(server.port())) {
        Message m = call(c, 1, new Hello(ProtocolLimits.PROTOCOL_VERSION, "x", token)).message();
        assertThat(((ErrorResponse) m).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
        c.awaitClosed();
      }
    }
  }

  @Test
  void a_server_without_tokens_welcomes_everyone_as_admin_and_lets_every_request_through()
      throws Exception {
    try (ServerProcess open = ServerProcess.start(Files.createDirectories(dir.resolve("open")));
        RawConnection c = RawConnection.open(open.port())) {
      assertThat(hello(c, "anyone", Optional.empty()).principal()).isEqualTo(Principal.ADMIN);
      assertNoneForbidden(c, adminRequests());
    }
  }

  @Test
  void the_same_secret_in_both_token_files_refuses_to_start() throws Exception {
    Path work = dir.resolve("same");
    Files.createDirectories(work);
    ServerProcess.Refusal refusal =
        ServerProcess.startRefused(
            work,
            "--auth-token-file",
            Tokens.file(work, "a.token", Tokens.WORKER).toString(),
            "--admin-token-file",
            Tokens.file(work, "b.token", Tokens.WORKER).toString());

    assertThat(refusal.exitCode()).isEqualTo(2);
    assertThat(refusal.log()).contains("adminToken must differ from authToken");
  }

  private static void assertNoneForbidden(RawConnection c, List<Request> requests)
      throws IOException {
    int id = 10;
    for (Request request : requests) {
      Message answer = call(c, id++, request).message();
      if (answer instanceof ErrorResponse error) {
        assertThat(error.code())
            .as("code for %s", request.opcode())
            .isNotEqualTo(ErrorCode.FORBIDDEN);
      }
    }
  }
}
