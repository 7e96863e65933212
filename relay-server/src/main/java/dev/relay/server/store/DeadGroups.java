package dev.relay.server.store;

import java.util.List;

/**
 * Dead jobs grouped by how they died, over the lowest-id dead jobs up to a scan cap.
 *
 * @param groups the groups, largest first, at most {@link JobStore#DEAD_GROUPS_MAX}
 * @param scanned dead jobs read to build them
 * @param complete whether every dead job was read ({@code scanned} stayed under the scan cap) and
 *     every group is listed
 */
public record DeadGroups(List<DeadGroup> groups, long scanned, boolean complete) {
  public DeadGroups {
    groups = List.copyOf(groups);
  }
}
