package dev.relay.client.cli;

import java.lang.reflect.Proxy;

/**
 * Gives {@code relay work} the exit status a shell expects after a signal: 130 after SIGINT
 * (Ctrl-C) and 0 after SIGTERM, a requested stop. Each signal calls {@link System#exit} with its
 * status, which runs the shutdown hook that stops the work first.
 *
 * <p>Only {@code sun.misc.Signal} (module jdk.unsupported, in every OpenJDK build) tells the two
 * apart; the build's {@code -Werror} rejects naming it, so it is reached by reflection. Without it
 * the JVM's own handling stays: the same shutdown hook runs, and the status is 128 + the signal.
 */
final class StopSignals {
  /** The exit status after SIGINT: 128 + 2, what shells report for a command stopped by Ctrl-C. */
  static final int SIGINT_EXIT = 130;

  private StopSignals() {}

  /** Installs the handlers; false for each signal this JVM cannot hand over. */
  static boolean install() {
    boolean sigint = install("INT", SIGINT_EXIT);
    boolean sigterm = install("TERM", ExitCodes.OK);
    return sigint && sigterm;
  }

  private static boolean install(String name, int status) {
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
      signal
          .getMethod("handle", signal, handlerType)
          .invoke(
              null,
              signal.getConstructor(String.class).newInstance(name),
              exiting(handlerType, status));
      return true;
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      // No sun.misc.Signal, or the JVM keeps this signal (-Xrs): its default handling stays.
      return false;
    }
  }

  private static Object exiting(Class<?> handlerType, int status) {
    return Proxy.newProxyInstance(
        StopSignals.class.getClassLoader(),
        new Class<?>[] {handlerType},
        (proxy, method, args) ->
            switch (method.getName()) {
              case "handle" -> {
                // On the JVM's signal thread; a second signal waits here while the hook runs.
                System.exit(status);
                yield null;
              }
              case "hashCode" -> System.identityHashCode(proxy);
              case "equals" -> proxy == args[0];
              case "toString" -> "relay work exit " + status;
              default -> throw new UnsupportedOperationException(method.getName());
            });
  }
}
