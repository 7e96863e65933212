package dev.relay.server;

import dev.relay.server.store.StoreConfig;
import java.time.Duration;

/** The lease-duration bounds of the store, checked before a LEASE or RENEW reaches it. */
final class LeaseLimits {
  private LeaseLimits() {}

  /** A message saying why {@code lease} is out of bounds, or null when it is within them. */
  static String check(StoreConfig store, Duration lease) {
    Duration min = store.leaseDurationMin();
    Duration max = store.leaseDurationMax();
    if (lease.compareTo(min) < 0 || lease.compareTo(max) > 0) {
      return "leaseMillis must be in ["
          + min.toMillis()
          + ", "
          + max.toMillis()
          + "], was "
          + lease.toMillis();
    }
    return null;
  }
}
