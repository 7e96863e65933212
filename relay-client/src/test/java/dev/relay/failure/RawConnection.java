package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Frame;
import dev.relay.protocol.FrameCodec;
import dev.relay.protocol.Hello;
import dev.relay.protocol.ProtocolException;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Side;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;

/**
 * A plain blocking socket to the server that writes whatever bytes a test hands it, for peers that
 * misbehave on purpose; what the server sends back is decoded strictly, so a malformed answer fails
 * the test.
 */
public final class RawConnection implements AutoCloseable {
  /**
   * How long a read waits for the server to answer or close before the test fails: a deadline for a
   * server that hangs, far above any answer's normal latency, not a measurement.
   */
  public static final Duration READ_DEADLINE = Duration.ofSeconds(30);

  public static final int HELLO_REQUEST_ID = 1;

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;

  private RawConnection(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  public static RawConnection open(int port) throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setTcpNoDelay(true); // every write leaves as its own segment: a split frame stays split
    socket.setSoTimeout((int) READ_DEADLINE.toMillis());
    return new RawConnection(socket);
  }

  /** A connection from {@code localAddress} (any 127/8 address works on Linux's loopback). */
  public static RawConnection openFrom(InetAddress localAddress, int port) throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), port, localAddress, 0);
    socket.setTcpNoDelay(true);
    socket.setSoTimeout((int) READ_DEADLINE.toMillis());
    return new RawConnection(socket);
  }

  public static byte[] encode(Frame frame) {
    ByteBuf buf = Unpooled.buffer();
    try {
      FrameCodec.encode(frame, buf);
      byte[] bytes = new byte[buf.readableBytes()];
      buf.readBytes(bytes);
      return bytes;
    } finally {
      buf.release();
    }
  }

  public static byte[] helloBytes() {
    return encode(
        new Frame(
            HELLO_REQUEST_ID,
            new Hello(ProtocolLimits.PROTOCOL_VERSION, "bad-input", Optional.empty())));
  }

  public void write(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  public void write(byte[] bytes, int offset, int length) throws IOException {
    out.write(bytes, offset, length);
    out.flush();
  }

  /** Sends HELLO and answers the server's first frame (WELCOME, or an ERROR such as a cap). */
  public Frame hello() throws IOException {
    write(helloBytes());
    return read().orElseThrow(() -> new AssertionError("the server closed instead of answering"));
  }

  /**
   * The next frame from the server, or empty when it closed the connection (a FIN, or a reset
   * because it closed with our bytes still unread).
   */
  public Optional<Frame> read() throws IOException {
    int length;
    try {
      length = in.readInt();
    } catch (EOFException e) {
      return Optional.empty();
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no frame and no close from the server within " + READ_DEADLINE);
    } catch (SocketException e) {
      return Optional.empty();
    }
    assertThat(length).isBetween(ProtocolLimits.FRAME_HEADER_BYTES, ProtocolLimits.FRAME_BYTES_MAX);
    byte[] body = new byte[length];
    in.readFully(body);
    ByteBuf frame = Unpooled.wrappedBuffer(body);
    try {
      return Optional.of(FrameCodec.decode(frame, Side.CLIENT));
    } catch (ProtocolException e) {
      throw new AssertionError("the server sent a malformed frame: " + e.getMessage(), e);
    } finally {
      frame.release();
    }
  }

  /** Waits for the server to close, failing on any frame it sends instead. */
  public void awaitClosed() throws IOException {
    Optional<Frame> frame = read();
    assertThat(frame).as("a frame where a close was expected").isEmpty();
  }

  /** Half-closes: the server reads end of stream, as after a peer's orderly close. */
  public void shutdownOutput() throws IOException {
    socket.shutdownOutput();
  }

  /** Closes with a reset (SO_LINGER 0), as a peer that crashes or is cut off mid-frame. */
  public void abort() throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
