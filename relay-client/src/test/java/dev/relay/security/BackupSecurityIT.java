package dev.relay.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.client.RelayException;
import dev.relay.failure.RawConnection;
import dev.relay.failure.ServerProcess;
import dev.relay.protocol.BackedUp;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.Message;
import dev.relay.protocol.Opcode;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Welcome;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, point 1 (first two bullets): <b>BACKUP writes only into the operator's backup
 * directory</b>.
 *
 * <p>Attack: at c0a062a BACKUP wrote a file at any absolute path the client named, with bytes it
 * chose: a payload holding an ssh key line, then BACKUP to {@code ~/.ssh/authorized_keys}, left a
 * file sshd accepts. It also followed a dangling symlink, did not normalise "..", created files
 * 0644, and 20 backups in a row filled the disk.
 *
 * <p>The server must: refuse BACKUP with INVALID_STATE naming {@code --backup-dir} when none is
 * configured; refuse any name that is not a plain file name as MALFORMED_FRAME (and close the
 * connection) so no path, separator, ".." or hidden file can be named; refuse an existing name or a
 * symlink in the backup directory (INVALID_ARGUMENT) without writing through it; create each backup
 * 0600 inside the backup directory; answer a second BACKUP while one runs with retryable
 * OVERLOADED; keep only the newest {@code --backup-keep} backups. Each test starts a real server
 * process and speaks the wire through a raw socket where the client library would refuse to send.
 */
class BackupSecurityIT {
  private static final String SSH_KEY_LINE =
      "\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAttackerKeyAttackerKeyAttackerKey attacker\n";

  @TempDir Path dir;

  @Test
  void backup_without_a_backup_directory_is_refused_naming_the_flag() throws Exception {
    try (ServerProcess server = ServerProcess.start(dir);
        RelayClient client = server.connect()) {
      assertThatThrownBy(() -> RelayClient.await(client.backup()))
          .isInstanceOfSatisfying(
              RelayException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_STATE))
          .hasMessageContaining("--backup-dir");
    }
  }

  @Test
  void the_ssh_key_attack_cannot_name_a_path_and_no_file_appears_anywhere() throws Exception {
    Path backups = dir.resolve("backups");
    Path home = Files.createDirectories(dir.resolve("home"));
    Path authorizedKeys = home.resolve(".ssh").resolve("authorized_keys");
    try (ServerProcess server = ServerProcess.start(dir, "--backup-dir", backups.toString());
        RelayClient client = server.connect()) {
      client.enqueueAndWait(JobSpecs.of("keys", SSH_KEY_LINE.getBytes(StandardCharsets.US_ASCII)));
      List<Path> before = listRecursively(dir);

      for (String name :
          List.of(
              authorizedKeys.toString(),
              "../home/.ssh/authorized_keys",
              "../../authorized_keys",
              "..",
              ".ssh",
              ".hidden.db",
              "a/b.db",
              "/etc/cron.d/relay",
              "name\nwith-newline.db")) {
        assertThat(rawBackup(server.port(), name))
            .as("answer to BACKUP \"%s\"", name)
            .isEqualTo(ErrorCode.MALFORMED_FRAME);
      }

      assertThat(authorizedKeys).doesNotExist();
      assertThat(home.resolve(".ssh")).doesNotExist();
      assertThat(listFiles(backups)).isEmpty();
      assertThat(listRecursively(dir)).containsExactlyInAnyOrderElementsOf(before);
      // A plain name that looks like the target lands in the backup directory and nowhere else.
      BackedUp plain = RelayClient.await(client.backup("authorized_keys"));
      assertThat(listFiles(backups)).containsExactly(backups.resolve("authorized_keys"));
      assertThat(plain.name()).isEqualTo("authorized_keys");
      assertThat(authorizedKeys).doesNotExist();
      assertThat(server.isAlive()).isTrue();
    }
  }

  @Test
  void an_existing_name_and_a_dangling_symlink_are_refused_and_never_written_through()
      throws Exception {
    Path backups = Files.createDirectories(dir.resolve("backups"));
    Path existing = Files.writeString(backups.resolve("existing.db"), "operator's file");
    Path target = dir.resolve("outside").resolve("authorized_keys");
    Files.createDirectories(target.getParent());
    Files.createSymbolicLink(backups.resolve("link.db"), target);
    try (ServerProcess server = ServerProcess.start(dir, "--backup-dir", backups.toString());
        RelayClient client = server.connect()) {
      assertRefused(client.backup("existing.db"), ErrorCode.INVALID_ARGUMENT, "exists");
      assertRefused(client.backup("link.db"), ErrorCode.INVALID_ARGUMENT, "exists");

      assertThat(Files.readString(existing)).isEqualTo("operator's file");
      assertThat(target).doesNotExist();
      assertThat(Files.isSymbolicLink(backups.resolve("link.db"))).isTrue();
    }
  }

  @Test
  void a_backup_is_a_private_file_in_the_backup_directory() throws Exception {
    Path backups = dir.resolve("backups");
    try (ServerProcess server = ServerProcess.start(dir, "--backup-dir", backups.toString());
        RelayClient client = server.connect()) {
      client.enqueueAndWait(JobSpecs.of("q", "personal data".getBytes(StandardCharsets.UTF_8)));

      BackedUp backedUp = RelayClient.await(client.backup());

      Path file = backups.resolve(backedUp.name());
      assertThat(backedUp.name()).matches("relay-\\d{8}T\\d{6}\\.\\d{3}Z\\.db");
      assertThat(listFiles(backups)).containsExactly(file);
      assertThat(backedUp.bytes()).isEqualTo(Files.size(file)).isPositive();
      assertThat(mode(file)).isEqualTo("rw-------");
      assertThat(mode(backups)).isEqualTo("rwx------");
    }
  }

  @Test
  void a_second_backup_while_one_runs_gets_retryable_overloaded() throws Exception {
    Path backups = dir.resolve("backups");
    try (ServerProcess server = ServerProcess.start(dir, "--backup-dir", backups.toString());
        RelayClient client = server.connect();
        RawConnection raw = welcomed(server.port())) {
      fill(client, 4);
      // Both frames leave in one write, so the server decodes the second on the same event loop
      // pass as the first: microseconds later, while the first copy (and its fsyncs) still runs.
      byte[] both = concat(backupFrame(2, "first.db"), backupFrame(3, "second.db"));
      raw.write(both);
      List<Frame> answers = List.of(answer(raw), answer(raw));

      Message first = answerTo(answers, 2);
      Message second = answerTo(answers, 3);
      assertThat(first).as("%s", first).isInstanceOf(BackedUp.class);
      assertThat(second).as("%s", second).isInstanceOf(ErrorResponse.class);
      ErrorResponse busy = (ErrorResponse) second;
      assertThat(busy.code()).isEqualTo(ErrorCode.OVERLOADED);
      assertThat(busy.retryable()).isTrue();
      assertThat(busy.message()).contains("a backup is already running");
      assertThat(listFiles(backups)).containsExactly(backups.resolve("first.db"));
    }
  }

  @Test
  void after_keep_plus_two_backups_only_keep_remain() throws Exception {
    Path backups = dir.resolve("backups");
    int keep = 2;
    try (ServerProcess server =
            ServerProcess.start(
                dir, "--backup-dir", backups.toString(), "--backup-keep", Integer.toString(keep));
        RelayClient client = server.connect()) {
      client.enqueueAndWait(JobSpecs.of("q", "x".getBytes(StandardCharsets.UTF_8)));
      List<String> names = new ArrayList<>();
      for (int i = 1; i <= keep + 2; i++) {
        names.add(RelayClient.await(client.backup("b" + i + ".db")).name());
        Files.setLastModifiedTime(
            backups.resolve("b" + i + ".db"),
            java.nio.file.attribute.FileTime.fromMillis(1_000_000L * i));
      }

      assertThat(listFiles(backups))
          .containsExactlyInAnyOrder(backups.resolve("b3.db"), backups.resolve("b4.db"));
      System.out.printf(
          "BackupSecurityIT: %d backups with --backup-keep %d left %s%n",
          names.size(), keep, listFiles(backups));
    }
  }

  // ---- helpers ----

  /** Sends BACKUP with {@code name} on a fresh raw connection and answers the error code. */
  private static ErrorCode rawBackup(int port, String name) throws IOException {
    try (RawConnection raw = welcomed(port)) {
      raw.write(backupFrame(2, name));
      Frame answer = answer(raw);
      assertThat(answer.message()).isInstanceOf(ErrorResponse.class);
      raw.awaitClosed();
      return ((ErrorResponse) answer.message()).code();
    }
  }

  /** A BACKUP frame written byte by byte, since the Backup record refuses such names. */
  /** A raw connection that has said HELLO and been welcomed. */
  private static RawConnection welcomed(int port) throws IOException {
    RawConnection raw = RawConnection.open(port);
    assertThat(raw.hello().message()).isInstanceOf(Welcome.class);
    return raw;
  }

  private static Frame answer(RawConnection raw) throws IOException {
    return raw.read().orElseThrow(() -> new AssertionError("closed instead of answering"));
  }

  private static byte[] backupFrame(int requestId, String name) {
    byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
    ByteBuf buf = Unpooled.buffer();
    try {
      buf.writeInt(ProtocolLimits.FRAME_HEADER_BYTES + 2 + utf8.length);
      buf.writeByte(Opcode.BACKUP.code());
      buf.writeInt(requestId);
      buf.writeShort(utf8.length);
      buf.writeBytes(utf8);
      byte[] bytes = new byte[buf.readableBytes()];
      buf.readBytes(bytes);
      return bytes;
    } finally {
      buf.release();
    }
  }

  private static void fill(RelayClient client, int megabytes) {
    byte[] payload = new byte[1024 * 1024 - 1024];
    for (int i = 0; i < megabytes; i++) {
      client.enqueueAndWait(JobSpecs.of("ballast", payload));
    }
  }

  private static Message answerTo(List<Frame> frames, int requestId) {
    return frames.stream()
        .filter(f -> f.requestId() == requestId)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no answer to request " + requestId))
        .message();
  }

  private static void assertRefused(
      java.util.concurrent.CompletableFuture<?> request, ErrorCode code, String text) {
    assertThatThrownBy(() -> RelayClient.await(request))
        .isInstanceOfSatisfying(RelayException.class, e -> assertThat(e.code()).isEqualTo(code))
        .hasMessageContaining(text);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static List<Path> listFiles(Path d) throws IOException {
    if (!Files.exists(d)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(d)) {
      return files.toList();
    }
  }

  /** Every path under {@code d} except the server's logs and its live database files. */
  private static List<Path> listRecursively(Path d) throws IOException {
    try (Stream<Path> files = Files.walk(d)) {
      return files
          .filter(p -> !p.getFileName().toString().startsWith("relay.db"))
          .filter(p -> !p.getFileName().toString().endsWith(".log"))
          .toList();
    }
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }
}
