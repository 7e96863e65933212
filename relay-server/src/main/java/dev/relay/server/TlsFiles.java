package dev.relay.server;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import javax.net.ssl.SSLException;

/**
 * The PEM certificate chain and PKCS#8 private key that turn TLS on.
 *
 * @param certificateChain PEM file with the server certificate first
 * @param privateKey PEM file with the unencrypted PKCS#8 key of that certificate
 */
public record TlsFiles(Path certificateChain, Path privateKey) {
  public TlsFiles {
    Objects.requireNonNull(certificateChain, "certificateChain");
    Objects.requireNonNull(privateKey, "privateKey");
  }

  /** The server context; the JDK provider keeps the jar free of native libraries. */
  SslContext serverContext() {
    for (Path file : new Path[] {certificateChain, privateKey}) {
      if (!Files.isReadable(file)) {
        throw new IllegalArgumentException("TLS file " + file + " is missing or not readable");
      }
    }
    SecretFiles.refuseOpenToOthers(privateKey, "TLS private key");
    try {
      return SslContextBuilder.forServer(certificateChain.toFile(), privateKey.toFile())
          .sslProvider(SslProvider.JDK)
          .build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cannot load TLS certificate "
              + certificateChain
              + " and key "
              + privateKey
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
