package dev.relay.client;

import dev.relay.protocol.FrameDecoder;
import dev.relay.protocol.FrameEncoder;
import dev.relay.protocol.Side;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * Builds a client channel's pipeline: [TLS] -> frame decoder -> response handler; frame encoder.
 */
final class ClientChannelInitializer extends ChannelInitializer<SocketChannel> {
  private static final FrameEncoder ENCODER = new FrameEncoder();

  private final ClientOptions options;
  private final Optional<SslContext> sslContext;

  ClientChannelInitializer(ClientOptions options, Optional<SslContext> sslContext) {
    this.options = options;
    this.sslContext = sslContext;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    sslContext.ifPresent(ssl -> ch.pipeline().addLast(tlsHandler(ssl, ch)));
    ch.pipeline()
        .addLast(new FrameDecoder(Side.CLIENT, options.frameBytesMax()))
        .addLast(ENCODER)
        .addLast(new ResponseHandler(options.host() + ":" + options.port()));
  }

  private SslHandler tlsHandler(SslContext ssl, SocketChannel ch) {
    SslHandler handler = ssl.newHandler(ch.alloc(), options.host(), options.port());
    // Check that the certificate names the host we dialled, not just that a trusted CA signed it.
    SSLEngine engine = handler.engine();
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    engine.setSSLParameters(parameters);
    return handler;
  }
}
