package dev.relay.server.store;

import dev.relay.protocol.JobState;
import java.util.Map;

/**
 * What {@link SqliteStore#open} found and repaired.
 *
 * @param schemaVersionFound {@code user_version} of the file before migration (0 for a new file)
 * @param jobsByState jobs per state as found, before leases were recovered
 * @param leasesRequeued leases left from before the restart, now ready again with tokens cleared
 * @param leasesDead leases left from before the restart whose attempts were exhausted, now dead
 */
public record RecoveryReport(
    int schemaVersionFound, Map<JobState, Long> jobsByState, long leasesRequeued, long leasesDead) {
  public RecoveryReport {
    jobsByState = Map.copyOf(jobsByState);
  }
}
