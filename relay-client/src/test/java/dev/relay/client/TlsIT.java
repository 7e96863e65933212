package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.server.TlsFiles;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client over TLS to a real server, trusting a throwaway PEM certificate. */
final class TlsIT {
  @TempDir Path dir;

  private Path writeCertificate(X509Bundle cert, String name) throws Exception {
    return Files.writeString(
        dir.resolve(name + ".crt"), cert.getCertificatePEM(), StandardCharsets.US_ASCII);
  }

  private TestServer tlsServer(X509Bundle cert) throws Exception {
    Path certFile = writeCertificate(cert, "server");
    Path keyFile =
        Files.writeString(
            dir.resolve("server.key"), cert.getPrivateKeyPEM(), StandardCharsets.US_ASCII);
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
    return new TestServer(
        Files.createDirectories(dir.resolve("data")),
        c -> c.withTls(new TlsFiles(certFile, keyFile)));
  }

  private static X509Bundle selfSigned(String ip) throws Exception {
    return new CertificateBuilder()
        .subject("CN=relay-test")
        .addSanIpAddress(ip)
        .setIsCertificateAuthority(true)
        .buildSelfSigned();
  }

  @Test
  void a_client_trusting_the_servers_certificate_enqueues_and_leases_over_tls() throws Exception {
    X509Bundle cert = selfSigned("127.0.0.1");
    try (TestServer server = tlsServer(cert);
        RelayClient client =
            RelayClient.connect(
                server.options().tlsTrustFile(writeCertificate(cert, "trust")).build())) {
      client.enqueue("tls", "secret".getBytes(StandardCharsets.UTF_8)).join();

      var jobs =
          RelayClient.await(client.lease(List.of("tls"), 1, Duration.ofSeconds(5), Duration.ZERO));

      assertThat(jobs).hasSize(1);
      assertThat(jobs.get(0).payload()).isEqualTo("secret".getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void a_certificate_from_another_authority_is_refused() throws Exception {
    try (TestServer server = tlsServer(selfSigned("127.0.0.1"))) {
      Path otherCa = writeCertificate(selfSigned("127.0.0.1"), "other");

      assertThatThrownBy(() -> RelayClient.connect(server.options().tlsTrustFile(otherCa).build()))
          .isInstanceOf(RelayConnectionException.class);
    }
  }

  @Test
  void a_certificate_that_does_not_name_the_host_is_refused() throws Exception {
    X509Bundle cert = selfSigned("127.0.0.2");
    try (TestServer server = tlsServer(cert)) {
      Path trust = writeCertificate(cert, "trust");

      assertThatThrownBy(() -> RelayClient.connect(server.options().tlsTrustFile(trust).build()))
          .isInstanceOf(RelayConnectionException.class);
    }
  }
}
