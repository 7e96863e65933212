package dev.relay.client;

import dev.relay.protocol.FencingToken;
import dev.relay.protocol.Header;
import dev.relay.protocol.LeasedJob;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One leased job: its identity, type, headers, payload and lease, as a {@link JobHandler} sees it
 * and as {@link RelayClient#lease} returns it.
 *
 * <p>Run by a {@link Worker}, the lease is renewed in the background while the handler runs; {@link
 * #leaseLost()} turns true, and {@link #onLeaseLost()} completes, when it no longer is (renewal
 * refused, or released at shutdown). A job from {@link RelayClient#lease} is nobody's to renew but
 * the caller's, who settles it with its {@link #token()}; its {@link #leaseLost()} stays false.
 */
public final class Job {
  private final LeasedJob leased;
  private final Map<String, String> headers;
  private final CompletableFuture<Void> lost = new CompletableFuture<>();
  private volatile Instant leaseExpiresAt;

  Job(LeasedJob leased) {
    this.leased = leased;
    this.leaseExpiresAt = Instant.ofEpochMilli(leased.leaseExpiresAtMillis());
    Map<String, String> map = new LinkedHashMap<>();
    for (Header header : leased.headers()) {
      map.put(header.name(), header.value());
    }
    this.headers = Collections.unmodifiableMap(map);
  }

  /** The job's id. */
  public long id() {
    return leased.jobId();
  }

  /** The queue it was leased from. */
  public String queue() {
    return leased.queue();
  }

  /** Its type, as enqueued with {@link JobSpecs.Builder#type}; {@code ""} when untyped. */
  public String type() {
    return leased.type();
  }

  /**
   * Its headers, as enqueued (and as interceptors added them): an unmodifiable map in the order
   * they were sent, names compared case-sensitively; empty when there are none.
   */
  public Map<String, String> headers() {
    return headers;
  }

  /** A copy of its payload. */
  public byte[] payload() {
    return leased.payload().toBytes();
  }

  /** Which attempt this is, counted from 1. */
  public int attempt() {
    return leased.attempt();
  }

  /** The job's fencing number, increasing with every lease: a larger number is a newer lease. */
  public long fencingNumber() {
    return leased.fencingNumber();
  }

  /** Its priority class, 0 (most urgent) to 3. */
  public int priority() {
    return leased.priority();
  }

  /** When it was enqueued, on the server's clock. */
  public Instant enqueuedAt() {
    return Instant.ofEpochMilli(leased.enqueuedAtMillis());
  }

  /** When the lease ends unless renewed again, on the server's clock; moves with each renewal. */
  public Instant leaseExpiresAt() {
    return leaseExpiresAt;
  }

  /** Whether the lease is gone: the result of this run will not be acknowledged. */
  public boolean leaseLost() {
    return lost.isDone();
  }

  /** Completes when the lease is lost; never completes for a job that finishes normally. */
  public CompletionStage<Void> onLeaseLost() {
    return lost.minimalCompletionStage();
  }

  /**
   * The fencing token of this lease, which ACK, NACK, RELEASE and RENEW must present; a secret of
   * this lease, never logged by the client.
   */
  public FencingToken token() {
    return leased.token();
  }

  void leaseExpiresAt(Instant expiry) {
    this.leaseExpiresAt = expiry;
  }

  /** Marks the lease lost; true only for the call that did it. */
  boolean markLost() {
    return lost.complete(null);
  }

  @Override
  public String toString() {
    return "Job[id="
        + id()
        + ", queue="
        + queue()
        + (type().isEmpty() ? "" : ", type=" + type())
        + ", attempt="
        + attempt()
        + ", fencingNumber="
        + fencingNumber()
        + "]";
  }
}
