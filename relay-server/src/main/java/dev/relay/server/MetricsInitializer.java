package dev.relay.server;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds each metrics connection's pipeline:
 *
 * <pre>
 * HttpServerCodec (line and header caps) -> HttpObjectAggregator (no body)
 *     -> MetricsReadTimeout -> MetricsRequestHandler
 * </pre>
 *
 * A connection over {@code metricsConnectionsMax} gets no pipeline and is closed at once. Refusals
 * are logged at DEBUG only: a flood of them must not become a flood of log lines.
 */
final class MetricsInitializer extends ChannelInitializer<SocketChannel> {
  private static final Logger log = LoggerFactory.getLogger(MetricsInitializer.class);

  /** Longest request body accepted: none; a scrape is a GET. */
  static final int CONTENT_BYTES_MAX = 0;

  private final MetricsConfig config;
  private final MetricsRequestHandler handler;
  private final AtomicInteger open = new AtomicInteger();

  MetricsInitializer(MetricsConfig config, PrometheusRegistry registry, Duration authFailureDelay) {
    this.config = config;
    this.handler = new MetricsRequestHandler(registry, config.token(), authFailureDelay);
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    if (open.incrementAndGet() > config.connectionsMax()) {
      open.decrementAndGet();
      log.debug(
          "metrics connection {} refused: metricsConnectionsMax ({}) open",
          ch.remoteAddress(),
          config.connectionsMax());
      ch.close();
      return;
    }
    ch.closeFuture().addListener(f -> open.decrementAndGet());
    addHandlers(ch.pipeline(), config, handler);
  }

  /**
   * The handlers of an admitted connection; tests build the same pipeline on an EmbeddedChannel.
   */
  static void addHandlers(ChannelPipeline p, MetricsConfig config, MetricsRequestHandler handler) {
    p.addLast(
        "http",
        new HttpServerCodec(
            MetricsConfig.REQUEST_LINE_BYTES_MAX,
            MetricsConfig.REQUEST_HEADER_BYTES_MAX,
            MetricsConfig.REQUEST_HEADER_BYTES_MAX));
    p.addLast("aggregator", new HttpObjectAggregator(CONTENT_BYTES_MAX));
    p.addLast("readTimeout", new MetricsReadTimeout(config.readTimeout()));
    p.addLast("request", handler);
  }
}
