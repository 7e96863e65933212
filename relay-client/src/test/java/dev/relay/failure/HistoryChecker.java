package dev.relay.failure;

import dev.relay.failure.HistoryEvent.EnqueueAcked;
import dev.relay.failure.HistoryEvent.Inspected;
import dev.relay.failure.HistoryEvent.LeaseGranted;
import dev.relay.failure.HistoryEvent.ServerKilled;
import dev.relay.failure.HistoryEvent.Settled;
import dev.relay.failure.HistoryEvent.Verb;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks a recorded {@link History} against what Relay promises its clients, using only what the
 * clients observed plus a final INSPECT of every job.
 *
 * <p>Where the client cannot know exactly when the server acted, the checker assumes the moment
 * that makes a violation least likely, so everything it reports is a real broken promise. A lease
 * is held from the server's grant time (known exactly from the expiry it set) to the earliest of
 * its expiry, the sending of an ACK or NACK for it that the server accepted or may have applied
 * (its answer was lost to a dropped connection; the server acted after the sending, if at all), and
 * the first kill after its grant (recorded once the process had exited, before the next one
 * started).
 */
final class HistoryChecker {
  /** The promises checked, one per rule. */
  enum Rule {
    /** An enqueue the server acknowledged has no job at the end. */
    ENQUEUE_LOST,
    /** The server accepted two ACKs for one job. */
    ACK_TWICE,
    /** An ACK was accepted with a token other than the one of the job's latest lease. */
    ACK_NOT_LATEST_LEASE,
    /** One job had two unexpired leases at the same time. */
    LEASES_OVERLAP,
    /** A job is neither done nor dead at the end. */
    NOT_FINISHED
  }

  /** One broken promise about one job. */
  record Violation(Rule rule, long jobId, String detail) {}

  private HistoryChecker() {}

  /**
   * Every violation in {@code history}, ordered by job id; empty when the run kept its promises.
   */
  static List<Violation> check(List<HistoryEvent> history) {
    Map<Long, JobHistory> jobs = new TreeMap<>();
    List<Long> killsAtMillis = new ArrayList<>();
    for (HistoryEvent event : history) {
      if (event instanceof ServerKilled k) {
        killsAtMillis.add(k.atMillis());
      } else {
        jobs.computeIfAbsent(jobIdOf(event), id -> new JobHistory()).add(event);
      }
    }
    killsAtMillis.sort(Comparator.naturalOrder());
    List<Violation> violations = new ArrayList<>();
    jobs.forEach(
        (jobId, job) -> {
          checkFinished(jobId, job, violations);
          checkAcks(jobId, job, violations);
          checkLeases(jobId, job, killsAtMillis, violations);
        });
    return violations;
  }

  private static long jobIdOf(HistoryEvent event) {
    if (event instanceof EnqueueAcked e) {
      return e.jobId();
    } else if (event instanceof LeaseGranted g) {
      return g.jobId();
    } else if (event instanceof HistoryEvent.SideEffect s) {
      return s.jobId();
    } else if (event instanceof Settled s) {
      return s.jobId();
    } else if (event instanceof Inspected i) {
      return i.jobId();
    }
    throw new IllegalArgumentException("no job in " + event);
  }

  private static void checkFinished(long jobId, JobHistory job, List<Violation> out) {
    if (job.inspected == null) {
      out.add(new Violation(Rule.NOT_FINISHED, jobId, "never inspected at the end"));
    } else if (job.inspected.state().isEmpty()) {
      out.add(
          job.enqueueAcked
              ? new Violation(Rule.ENQUEUE_LOST, jobId, "enqueue acknowledged, now UNKNOWN_JOB")
              : new Violation(Rule.NOT_FINISHED, jobId, "leased, now UNKNOWN_JOB"));
    } else {
      JobState state = job.inspected.state().get();
      if (state != JobState.DONE && state != JobState.DEAD) {
        out.add(new Violation(Rule.NOT_FINISHED, jobId, "ends " + state));
      }
    }
  }

  private static void checkAcks(long jobId, JobHistory job, List<Violation> out) {
    if (job.acksAccepted.size() > 1) {
      out.add(
          new Violation(Rule.ACK_TWICE, jobId, job.acksAccepted.size() + " ACKs were accepted"));
    }
    long newestFencingNumber =
        job.leases.stream().mapToLong(LeaseGranted::fencingNumber).max().orElse(0);
    for (Settled ack : job.acksAccepted) {
      LeaseGranted lease = job.leaseWith(ack.token());
      String problem = null;
      if (lease == null) {
        problem = "ACK accepted with a token never granted";
      } else if (lease.fencingNumber() < newestFencingNumber) {
        problem = "a lease with fencing number " + newestFencingNumber + " was granted too";
      } else if (job.inspected != null
          && job.inspected.state().isPresent()
          && job.inspected.fencingNumber() != lease.fencingNumber()) {
        problem = "the job ends at fencing number " + job.inspected.fencingNumber();
      }
      if (problem != null) {
        String acked =
            lease == null ? "" : "ACK accepted for fencing number " + lease.fencingNumber() + ", ";
        out.add(new Violation(Rule.ACK_NOT_LATEST_LEASE, jobId, acked + problem));
      }
    }
  }

  private static void checkLeases(
      long jobId, JobHistory job, List<Long> killsAtMillis, List<Violation> out) {
    List<LeaseGranted> byFencingNumber = new ArrayList<>(job.leases);
    byFencingNumber.sort(Comparator.comparingLong(LeaseGranted::fencingNumber));
    for (int older = 0; older < byFencingNumber.size(); older++) {
      LeaseGranted a = byFencingNumber.get(older);
      long aEndsAtMillis = job.endOf(a, killsAtMillis);
      for (int newer = older + 1; newer < byFencingNumber.size(); newer++) {
        LeaseGranted b = byFencingNumber.get(newer);
        if (b.fencingNumber() == a.fencingNumber()) {
          out.add(
              new Violation(
                  Rule.LEASES_OVERLAP,
                  jobId,
                  "two leases share fencing number " + a.fencingNumber()));
        } else if (b.grantedAtMillis() < aEndsAtMillis) {
          out.add(
              new Violation(
                  Rule.LEASES_OVERLAP,
                  jobId,
                  "lease "
                      + b.fencingNumber()
                      + " granted at "
                      + b.grantedAtMillis()
                      + ", lease "
                      + a.fencingNumber()
                      + " held until "
                      + aEndsAtMillis));
        }
      }
    }
  }

  /** What one job's events say, gathered in one pass. */
  private static final class JobHistory {
    final List<LeaseGranted> leases = new ArrayList<>();
    final List<Settled> acksAccepted = new ArrayList<>();
    final Map<FencingToken, Long> mayHaveSettledAtMillis = new HashMap<>();
    boolean enqueueAcked;
    Inspected inspected;

    void add(HistoryEvent event) {
      if (event instanceof EnqueueAcked) {
        enqueueAcked = true;
      } else if (event instanceof LeaseGranted g) {
        leases.add(g);
      } else if (event instanceof Settled s && (s.accepted() || s.outcomeUnknown())) {
        mayHaveSettledAtMillis.merge(s.token(), s.sentAtMillis(), Math::min);
        if (s.verb() == Verb.ACK && s.accepted()) {
          acksAccepted.add(s);
        }
      } else if (event instanceof Inspected i) {
        inspected = i;
      }
    }

    LeaseGranted leaseWith(FencingToken token) {
      return leases.stream().filter(l -> l.token().equals(token)).findFirst().orElse(null);
    }

    /** The earliest moment the lease can have ended: expiry, an ACK/NACK for it, or a kill. */
    long endOf(LeaseGranted lease, List<Long> killsAtMillis) {
      long end = lease.expiresAtMillis();
      end = Math.min(end, mayHaveSettledAtMillis.getOrDefault(lease.token(), Long.MAX_VALUE));
      for (long killAtMillis : killsAtMillis) {
        if (killAtMillis >= lease.grantedAtMillis()) {
          return Math.min(end, killAtMillis);
        }
      }
      return end;
    }
  }
}
