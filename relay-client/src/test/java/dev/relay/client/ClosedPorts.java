package dev.relay.client;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Ports on 127.0.0.1's machine that nothing listens on, for tests of failed connects. */
public final class ClosedPorts {
  private ClosedPorts() {}

  /** One port nothing listens on. */
  public static int one() throws IOException {
    return distinct(1)[0];
  }

  /**
   * Ports nothing listens on, distinct from each other: each socket stays bound until all are, so
   * the kernel cannot hand out the same port twice (taken one socket at a time, it once did).
   */
  public static int[] distinct(int count) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        sockets.add(new ServerSocket(0));
      }
      return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }
}
