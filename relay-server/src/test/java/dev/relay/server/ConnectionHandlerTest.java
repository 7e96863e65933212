package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Frame;
import dev.relay.protocol.FrameDecoder;
import dev.relay.protocol.Hello;
import dev.relay.protocol.Principal;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Welcome;
import dev.relay.server.store.JobStore;
import dev.relay.server.store.SqliteStore;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Read back-pressure from the write side: an unwritable connection is not read. */
class ConnectionHandlerTest {
  @TempDir Path dir;

  private JobStore store;
  private EmbeddedChannel channel;
  private final ReadCounter reads = new ReadCounter();

  /** Counts the read requests the handler sends towards the socket. */
  static final class ReadCounter extends ChannelOutboundHandlerAdapter {
    int count;

    @Override
    public void read(ChannelHandlerContext ctx) {
      count++;
      ctx.read();
    }
  }

  @BeforeEach
  void open() throws Exception {
    ServerConfig config = ServerConfig.defaults(dir);
    store = SqliteStore.open(config.store(), Clock.systemUTC());
    ServerContext server = new ServerContext(config, store, Clock.systemUTC());
    Welcome welcome =
        new Welcome(1, "test", 1_114_112, 1_048_576, 256, 1000, 128, 1, 2, 3, Principal.ADMIN);
    channel = new EmbeddedChannel(false, false);
    channel.config().setAutoRead(false);
    channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(1024, 2048));
    channel
        .pipeline()
        .addLast(
            reads,
            FrameDecoder.awaitingHello(ProtocolLimits.FRAME_BYTES_MAX),
            new ConnectionHandler(
                server,
                new RequestDispatcher(server),
                welcome,
                server.gate().admit(channel, InetAddress.getLoopbackAddress()).ticket()));
    channel.register();
  }

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
    store.close();
  }

  @Test
  void a_writable_connection_is_read_and_an_unwritable_one_is_not_until_it_drains() {
    assertThat(reads.count).as("asks for HELLO on connect").isEqualTo(1);
    channel.writeInbound(
        new Frame(1, new Hello(ProtocolLimits.PROTOCOL_VERSION, "t", Optional.empty())));
    assertThat(((Frame) channel.readOutbound()).message()).isInstanceOf(Welcome.class);
    int afterHello = reads.count;
    assertThat(afterHello).isGreaterThan(1);

    channel.write(Unpooled.buffer(4096).writeZero(4096)); // pending, past the high water mark
    assertThat(channel.isWritable()).isFalse();
    // The end of a socket read is where the handler asks for more; unwritable, it must not.
    channel.pipeline().fireChannelReadComplete();
    assertThat(reads.count).as("no read while unwritable").isEqualTo(afterHello);

    channel.flush(); // the peer caught up: under the low water mark again
    assertThat(channel.isWritable()).isTrue();
    assertThat(reads.count).as("reads again once writable").isEqualTo(afterHello + 1);
  }
}
