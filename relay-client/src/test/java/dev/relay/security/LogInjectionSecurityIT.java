package dev.relay.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Job;
import dev.relay.client.RelayClient;
import dev.relay.failure.RawConnection;
import dev.relay.failure.ServerProcess;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.Hello;
import dev.relay.protocol.Opcode;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Welcome;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, point 4: log injection.
 *
 * <p>Attack: a client without the token sends a PAUSE frame first whose queue name holds a newline
 * and a forged "ERROR" record (the old server echoed it into a WARN line, forging an ERROR line),
 * then the same with NUL, ESC and other control bytes; a welcomed client names itself with a
 * newline, sends the same bad PAUSE after WELCOME, and NACKs a job with a multi-line error text.
 * Expected: every line the server printed parses as one record of the logback pattern (time, level,
 * thread, logger, message); no forged line appears, no ERROR at all; what the anonymous client sent
 * never reaches the log, and what the welcomed one sent appears escaped.
 */
class LogInjectionSecurityIT {
  static final String FORGED = "\n2030-01-01T00:00:00.000Z ERROR [main] dev.relay.Forged - FORGED";

  /** The pattern of relay-server's logback.xml, one record per line. */
  static final Pattern RECORD =
      Pattern.compile(
          "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d)"
              + " (ERROR|WARN |INFO |DEBUG|TRACE) \\[[^\\]]+\\] \\S+ - .*$");

  @TempDir Path dir;

  /** A PAUSE frame with a queue name no encoder would write, built byte by byte. */
  static byte[] rawPause(int requestId, String queue) throws IOException {
    byte[] name = queue.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(ProtocolLimits.FRAME_HEADER_BYTES + 2 + name.length + 1);
    out.writeByte(Opcode.PAUSE.code());
    out.writeInt(requestId);
    out.writeShort(name.length);
    out.write(name);
    out.writeByte(0); // create: false
    return bytes.toByteArray();
  }

  @Test
  void nothing_a_client_sends_can_forge_or_break_a_log_line() throws Exception {
    Path token = Tokens.file(dir, "worker.token", Tokens.WORKER);
    try (ServerProcess server =
        ServerProcess.start(dir, "--auth-token-file", token.toString(), "--log-level", "DEBUG")) {
      for (String queue : List.of("q" + FORGED, "q\u0000\u001b[31mRED\u0007\r\u0085\u2028x")) {
        try (RawConnection anonymous = RawConnection.open(server.port())) {
          anonymous.write(rawPause(7, queue));
          Frame answer = anonymous.read().orElseThrow();
          assertThat(((ErrorResponse) answer.message()).code())
              .isEqualTo(ErrorCode.MALFORMED_FRAME);
          anonymous.awaitClosed();
        }
      }
      try (RawConnection welcomed = RawConnection.open(server.port())) {
        welcomed.write(
            RawConnection.encode(
                new Frame(
                    1,
                    new Hello(
                        ProtocolLimits.PROTOCOL_VERSION,
                        "name" + FORGED,
                        Optional.of(Tokens.WORKER)))));
        assertThat(welcomed.read().orElseThrow().message()).isInstanceOf(Welcome.class);
        welcomed.write(rawPause(2, "q" + FORGED));
        assertThat(((ErrorResponse) welcomed.read().orElseThrow().message()).code())
            .isEqualTo(ErrorCode.MALFORMED_FRAME);
        welcomed.awaitClosed();
      }
      try (RelayClient client =
          RelayClient.connect(server.clientOptions().authToken(Tokens.WORKER).build())) {
        client.enqueue("inj", new byte[] {1}).get();
        Job job =
            client
                .lease(List.of("inj"), 1, Duration.ofSeconds(30), Duration.ofSeconds(5))
                .get()
                .get(0);
        client.nack(job.id(), job.token(), "boom" + FORGED + "\u0000").get();
      }
      // The last lines above are written before the answers they precede; read after a STATS
      // round trip on a fresh connection, so every line is in the file.
      try (RelayClient client =
          RelayClient.connect(server.clientOptions().authToken(Tokens.WORKER).build())) {
        client.stats().get();
      }

      String log = server.log();
      List<String> lines = log.lines().toList();
      assertThat(lines).isNotEmpty().allSatisfy(line -> assertThat(line).matches(RECORD));
      assertThat(lines)
          .as("no record at level ERROR")
          .noneMatch(line -> line.matches("^\\S+ ERROR .*"));
      assertThat(lines).noneMatch(line -> line.startsWith("2030-01-01"));
      assertThat(log)
          .as("the anonymous client's bytes never reach the log")
          .doesNotContain("RED")
          .contains("bad frame before HELLO");
      assertThat(log)
          .as("the welcomed client's name and bad queue name appear escaped")
          .contains("name\\n2030-01-01T00:00:00.000Z ERROR [main] dev.relay.Forged - FORGED")
          .contains("q\\n2030-01-01");
    }
  }
}
