package dev.relay.server.dashboard;

import dev.relay.server.MetricsReadTimeout;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds each dashboard connection's pipeline:
 *
 * <pre>
 * [SslHandler, under TLS] -> HttpServerCodec (line and header caps)
 *     -> HttpObjectAggregator (requestBytesMax; more is 413) -> MetricsReadTimeout
 *     -> DashboardHandler
 * </pre>
 *
 * A connection over {@code dashboardConnectionsMax} gets no pipeline and is closed at once;
 * refusals are logged at DEBUG only, so a flood of them is not a flood of log lines.
 */
final class DashboardInitializer extends ChannelInitializer<SocketChannel> {
  private static final Logger log = LoggerFactory.getLogger(DashboardInitializer.class);

  private final DashboardConfig config;
  private final SslContext ssl;
  private final DashboardHandler handler;
  private final AtomicInteger open = new AtomicInteger();

  DashboardInitializer(DashboardConfig config, SslContext sslOrNull, DashboardHandler handler) {
    this.config = config;
    this.ssl = sslOrNull;
    this.handler = handler;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    if (open.incrementAndGet() > config.connectionsMax()) {
      open.decrementAndGet();
      log.debug(
          "dashboard connection {} refused: dashboardConnectionsMax ({}) open",
          ch.remoteAddress(),
          config.connectionsMax());
      ch.close();
      return;
    }
    ch.closeFuture().addListener(f -> open.decrementAndGet());
    ChannelPipeline p = ch.pipeline();
    if (ssl != null) {
      p.addLast("tls", ssl.newHandler(ch.alloc()));
    }
    p.addLast(
        "http",
        new HttpServerCodec(
            DashboardConfig.REQUEST_LINE_BYTES_MAX,
            DashboardConfig.REQUEST_HEADER_BYTES_MAX,
            DashboardConfig.REQUEST_HEADER_BYTES_MAX));
    p.addLast("aggregator", new HttpObjectAggregator(config.requestBytesMax()));
    p.addLast("readTimeout", new MetricsReadTimeout(config.readTimeout()));
    p.addLast("request", handler);
  }
}
