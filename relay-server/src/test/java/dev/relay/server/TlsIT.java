package dev.relay.server;

import static dev.relay.server.TestServers.enqueue;
import static dev.relay.server.TestServers.lease;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.Ack;
import dev.relay.protocol.Enqueued;
import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import dev.relay.protocol.Ok;
import dev.relay.protocol.ProtocolLimits;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS with a throwaway PEM certificate: handshake, enqueue, lease and ack over TLS. */
class TlsIT {
  @TempDir Path dir;

  @Test
  void a_tls_client_completes_a_round_trip() throws Exception {
    X509Bundle cert =
        new CertificateBuilder()
            .subject("CN=localhost")
            .addSanIpAddress("127.0.0.1")
            .setIsCertificateAuthority(true)
            .buildSelfSigned();
    Path certFile = dir.resolve("server.crt");
    Path keyFile = dir.resolve("server.key");
    Files.writeString(certFile, cert.getCertificatePEM(), StandardCharsets.US_ASCII);
    Files.writeString(keyFile, cert.getPrivateKeyPEM(), StandardCharsets.US_ASCII);
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, cert.toTrustManagerFactory().getTrustManagers(), null);

    ServerConfig config =
        ServerConfig.defaults(dir.resolve("data")).withTls(new TlsFiles(certFile, keyFile));
    try (RelayServer server = TestServers.start(config);
        TestClient client = TestClient.connectTls(server.localAddress(), context)) {
      assertThat(client.hello(Optional.empty()).protocolVersion())
          .isEqualTo(ProtocolLimits.PROTOCOL_VERSION);
      assertThat(client.ask(enqueue("q", "secret"))).isInstanceOf(Enqueued.class);
      LeasedJob job = ((Leased) client.ask(lease("q", 1, 0))).jobs().get(0);
      assertThat(job.payload().toBytes()).isEqualTo("secret".getBytes(StandardCharsets.UTF_8));
      assertThat(client.ask(new Ack(job.jobId(), job.token()))).isInstanceOf(Ok.class);
    }
  }

  @Test
  void a_private_key_every_user_may_read_refuses_to_start() throws Exception {
    X509Bundle cert =
        new CertificateBuilder()
            .subject("CN=localhost")
            .setIsCertificateAuthority(true)
            .buildSelfSigned();
    Path certFile = Files.writeString(dir.resolve("server.crt"), cert.getCertificatePEM());
    Path keyFile = Files.writeString(dir.resolve("server.key"), cert.getPrivateKeyPEM());
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-r--r--"));

    ServerConfig config =
        ServerConfig.defaults(dir.resolve("data")).withTls(new TlsFiles(certFile, keyFile));
    assertThatThrownBy(() -> TestServers.start(config).close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("TLS private key " + keyFile + " is open to every user");
  }
}
