package dev.relay.server.store;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order in which a LEASE claims ready jobs, one for both backends: by effective class, then
 * available time, then id, walking the candidates until {@code jobsMax} are leased or the next one
 * would pass the payload budget. Each backend reads the candidates and claims one job its own way.
 *
 * <p>Aging: the effective class is the priority minus the full minutes waited since the job became
 * available, never below 0. Within one queue and class the oldest jobs also have the lowest
 * effective class, so reading the oldest {@code jobsMax} of each class finds the best {@code
 * jobsMax} overall.
 */
public final class ClaimOrder {
  /** Most expired leases a claim ends per requested queue before it reads the candidates. */
  public static final int CLAIM_EXPIRE_PER_QUEUE_MAX = 16;

  /** Waiting this long raises a job by one priority class. */
  public static final long AGING_STEP_MILLIS = 60_000;

  /** One ready job as seen through the index; its payload bytes include its type and headers. */
  public record Candidate(long id, int priority, long availableAtMillis, long payloadBytes) {
    public int effectiveClass(long nowMillis) {
      long waited = Math.max(0, nowMillis - availableAtMillis) / AGING_STEP_MILLIS;
      return (int) Math.max(0, priority - waited);
    }
  }

  /** Leases one candidate, or answers {@code null} when it is no longer ready or is corrupt. */
  @FunctionalInterface
  public interface Claim {
    LeaseGrant claim(Candidate candidate) throws SQLException;
  }

  /**
   * The jobs leased, in claim order, and whether a candidate was passed over: a passed-over one may
   * hide due jobs beyond the candidates read, so the caller asks again now.
   */
  public record Claimed(List<LeaseGrant> leased, boolean skipped) {}

  private ClaimOrder() {}

  /** Best first at {@code nowMillis}. */
  public static Comparator<Candidate> best(long nowMillis) {
    return Comparator.comparingInt((Candidate c) -> c.effectiveClass(nowMillis))
        .thenComparingLong(Candidate::availableAtMillis)
        .thenComparingLong(Candidate::id);
  }

  /**
   * The candidates {@link #claimInOrder} takes when every claim succeeds, in its order: best first,
   * up to {@code jobsMax}, the first whatever its size and then while the payload budget holds.
   * Both stores fence these together before the walk.
   */
  public static List<Candidate> likelyWinners(
      List<Candidate> candidates, long nowMillis, int jobsMax, long payloadBytesBudget) {
    List<Candidate> ordered = new ArrayList<>(candidates);
    ordered.sort(best(nowMillis));
    List<Candidate> winners = new ArrayList<>();
    long payloadBytes = 0;
    for (Candidate candidate : ordered) {
      if (winners.size() == jobsMax
          || (!winners.isEmpty() && payloadBytes + candidate.payloadBytes() > payloadBytesBudget)) {
        break;
      }
      winners.add(candidate);
      payloadBytes += candidate.payloadBytes();
    }
    return winners;
  }

  /**
   * Claims {@code candidates} best first, up to {@code jobsMax} jobs; the first job is claimed
   * whatever its size, and the walk stops at the first candidate that would take the leased
   * payloads past {@code payloadBytesBudget}, so no smaller, later job jumps the order.
   */
  public static Claimed claimInOrder(
      List<Candidate> candidates, long nowMillis, int jobsMax, long payloadBytesBudget, Claim claim)
      throws SQLException {
    List<Candidate> ordered = new ArrayList<>(candidates);
    ordered.sort(best(nowMillis));
    List<LeaseGrant> leased = new ArrayList<>();
    long payloadBytes = 0;
    boolean skipped = false;
    for (Candidate candidate : ordered) {
      if (leased.size() == jobsMax
          || (!leased.isEmpty() && payloadBytes + candidate.payloadBytes() > payloadBytesBudget)) {
        break;
      }
      LeaseGrant job = claim.claim(candidate);
      if (job == null) {
        skipped = true;
      } else {
        leased.add(job);
        payloadBytes += candidate.payloadBytes();
      }
    }
    return new Claimed(leased, skipped);
  }
}
