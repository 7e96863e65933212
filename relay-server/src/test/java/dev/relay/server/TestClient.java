package dev.relay.server;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.FrameCodec;
import dev.relay.protocol.Hello;
import dev.relay.protocol.Message;
import dev.relay.protocol.ProtocolException;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Request;
import dev.relay.protocol.Side;
import dev.relay.protocol.Welcome;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A blocking byte-level client for tests: plain {@link Socket} plus {@link FrameCodec}, so tests
 * see exactly the frames the server sends, including the last one before a close.
 */
final class TestClient implements AutoCloseable {
  /** How long a test waits for one frame before failing; generous for a loaded 2-core machine. */
  static final Duration RECEIVE_TIMEOUT = Duration.ofSeconds(10);

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  private int nextRequestId = 1;

  private TestClient(Socket socket) throws IOException {
    this.socket = socket;
    socket.setSoTimeout((int) RECEIVE_TIMEOUT.toMillis());
    socket.setTcpNoDelay(true);
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  static TestClient connect(InetSocketAddress address) {
    try {
      return new TestClient(new Socket(address.getAddress(), address.getPort()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static TestClient connectTls(InetSocketAddress address, SSLContext context) {
    try {
      SSLSocket socket =
          (SSLSocket)
              context.getSocketFactory().createSocket(address.getAddress(), address.getPort());
      socket.startHandshake();
      return new TestClient(socket);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Connects and completes the handshake without a token. */
  static TestClient open(InetSocketAddress address) {
    TestClient client = connect(address);
    client.hello(Optional.empty());
    return client;
  }

  int nextId() {
    return nextRequestId++;
  }

  /** Sends HELLO and expects WELCOME. */
  Welcome hello(Optional<String> token) {
    Frame answer = call(new Hello(ProtocolLimits.PROTOCOL_VERSION, "test", token));
    if (!(answer.message() instanceof Welcome welcome)) {
      throw new AssertionError("expected WELCOME, got " + answer);
    }
    return welcome;
  }

  /** Sends {@code request} with a fresh id; returns that id. */
  int send(Request request) {
    int id = nextId();
    send(id, request);
    return id;
  }

  void send(int requestId, Request request) {
    ByteBuf buf = Unpooled.buffer();
    try {
      FrameCodec.encode(new Frame(requestId, request), buf);
      byte[] bytes = new byte[buf.readableBytes()];
      buf.readBytes(bytes);
      sendRaw(bytes);
    } finally {
      buf.release();
    }
  }

  void sendRaw(byte[] bytes) {
    try {
      out.write(bytes);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends and returns the next frame, which must answer it (tests that do not pipeline). */
  Frame call(Request request) {
    int id = send(request);
    Frame answer = receive();
    if (answer.requestId() != id) {
      throw new AssertionError("expected the answer to " + id + ", got " + answer);
    }
    return answer;
  }

  /** The answer's message. */
  Message ask(Request request) {
    return call(request).message();
  }

  /** The error code of the answer, failing if it is not an ERROR. */
  ErrorCode askError(Request request) {
    Message m = ask(request);
    if (!(m instanceof ErrorResponse e)) {
      throw new AssertionError("expected ERROR, got " + m);
    }
    return e.code();
  }

  Frame receive() {
    return receive(RECEIVE_TIMEOUT);
  }

  Frame receive(Duration timeout) {
    try {
      socket.setSoTimeout((int) timeout.toMillis());
      int length = in.readInt();
      byte[] body = new byte[length];
      in.readFully(body);
      return FrameCodec.decode(Unpooled.wrappedBuffer(body), Side.CLIENT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ProtocolException e) {
      throw new AssertionError("server sent a malformed frame", e);
    }
  }

  /** True if nothing arrives within {@code wait} (the connection stays open and quiet). */
  boolean quietFor(Duration wait) {
    try {
      socket.setSoTimeout((int) wait.toMillis());
      int b = in.read();
      if (b < 0) {
        return false;
      }
      throw new AssertionError("expected silence, got a byte");
    } catch (SocketTimeoutException e) {
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** True once the server has closed the connection, within {@code wait}. */
  boolean closedWithin(Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    try {
      while (System.nanoTime() < deadline) {
        socket.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        int length;
        try {
          length = in.readInt();
        } catch (EOFException | SocketException e) {
          return true;
        }
        in.skipNBytes(length);
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
    return false;
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
