package dev.relay.security;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An anonymous flood on one thread: holds {@code sockets} connections to the server that never say
 * HELLO and reopens each one the server closes, optionally writing {@code firstBytes} on every new
 * socket, from 127.0.0.1 or another local address ({@link #from}). Bounded in reopens and time;
 * {@link #stop()} ends it.
 */
final class HandshakeFlood {
  private final int port;
  private final int sockets;
  private final long reopensMax;
  private final long deadlineNanos;
  private final byte[] firstBytes;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong opened = new AtomicLong();
  private final AtomicLong closedByServer = new AtomicLong();
  private final Thread thread;
  private InetAddress localAddress;
  private volatile Throwable failure;

  HandshakeFlood(int port, int sockets, long reopensMax, Duration runMax, byte[] firstBytes) {
    this.port = port;
    this.sockets = sockets;
    this.reopensMax = reopensMax;
    this.deadlineNanos = System.nanoTime() + runMax.toNanos();
    this.firstBytes = firstBytes.clone();
    this.thread = new Thread(this::run, "handshake-flood");
    thread.setDaemon(true);
  }

  /**
   * Opens the flood's sockets from {@code address}, a local address; call before {@link #start}.
   */
  HandshakeFlood from(InetAddress address) {
    this.localAddress = address;
    return this;
  }

  HandshakeFlood start() {
    thread.start();
    return this;
  }

  long opened() {
    return opened.get();
  }

  long closedByServer() {
    return closedByServer.get();
  }

  private void run() {
    ByteBuffer sink = ByteBuffer.allocate(4096);
    try (Selector selector = Selector.open()) {
      for (int i = 0; i < sockets; i++) {
        open(selector);
      }
      while (!stop.get() && System.nanoTime() < deadlineNanos) {
        selector.select(50);
        for (SelectionKey key : selector.selectedKeys()) {
          SocketChannel ch = (SocketChannel) key.channel();
          int n;
          try {
            sink.clear();
            n = ch.read(sink);
          } catch (IOException e) {
            n = -1; // reset by the server
          }
          if (n < 0) {
            key.cancel();
            ch.close();
            closedByServer.incrementAndGet();
            if (opened.get() < sockets + reopensMax) {
              open(selector);
            }
          }
        }
        selector.selectedKeys().clear();
      }
      for (SelectionKey key : selector.keys()) {
        key.channel().close();
      }
    } catch (IOException | RuntimeException e) {
      failure = e;
    }
  }

  private void open(Selector selector) throws IOException {
    SocketChannel ch = SocketChannel.open();
    if (localAddress != null) {
      ch.bind(new InetSocketAddress(localAddress, 0));
    }
    ch.connect(new InetSocketAddress("127.0.0.1", port));
    opened.incrementAndGet();
    if (firstBytes.length > 0) {
      try {
        ch.write(ByteBuffer.wrap(firstBytes));
      } catch (IOException e) {
        ch.close(); // the server answered and closed before the bytes were all written
        closedByServer.incrementAndGet();
        return;
      }
    }
    ch.configureBlocking(false);
    ch.register(selector, SelectionKey.OP_READ);
  }

  /** Stops the flood, closes its sockets and rethrows what broke it, if anything did. */
  void stop() throws InterruptedException {
    stop.set(true);
    thread.join(Duration.ofSeconds(30).toMillis());
    if (failure != null) {
      throw new AssertionError("the flood itself failed", failure);
    }
  }
}
