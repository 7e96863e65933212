package dev.relay.bench;

import dev.relay.bench.ServerProcess.ServerCounts;
import dev.relay.client.Job;
import dev.relay.client.RelayClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Drains jobs already waiting in one queue the way a simple consumer (or a client in another
 * language) does, without relay-client's {@code Worker}: on each of {@code connections} {@link
 * RelayClient}s, {@code inFlight} independent loops, each sending a LEASE for one job with no
 * long-poll wait, then the ACK of that job, then the next LEASE. A loop ends when its LEASE comes
 * back empty, which on a preloaded queue with no other consumer means every job is taken. The clock
 * starts just before the first LEASE and stops at the ACK reply of the last of {@code jobs}.
 */
final class SingleLeaseDrain {
  static final Duration LEASE_DURATION = Duration.ofSeconds(30);

  private final RelayClient client;
  private final List<String> queues;
  private final Histogram latency;
  private final DrainProgress progress;
  private final CountDownLatch loopsEnded;

  private SingleLeaseDrain(
      RelayClient client,
      String queue,
      Histogram latency,
      DrainProgress progress,
      CountDownLatch loopsEnded) {
    this.client = client;
    this.queues = List.of(queue);
    this.latency = latency;
    this.progress = progress;
    this.loopsEnded = loopsEnded;
  }

  static EndToEndDrain.Result run(
      ServerProcess server,
      RelayClient admin,
      String queue,
      int jobs,
      int connections,
      int inFlight,
      ClientCpu clientCpu) {
    List<RelayClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < connections; i++) {
        clients.add(server.connect("bench-single-" + i));
      }
      Histogram latency = new ConcurrentHistogram(3);
      DrainProgress progress = new DrainProgress(jobs);
      CountDownLatch loopsEnded = new CountDownLatch(connections * inFlight);
      ServerCounts before = ServerProcess.counts(admin);
      Optional<Syscalls> syscalls = Syscalls.of(server.pid());
      List<Long> pid = List.of(server.pid());
      Optional<List<ServerThreadCpu.Reading>> threads = ServerThreadCpu.read(pid);
      long serverCpu = CpuTime.nanos(server.pid());
      ClientCpu.Mark clientCpuStart = clientCpu.mark();
      long start = System.nanoTime();
      for (RelayClient client : clients) {
        SingleLeaseDrain drain = new SingleLeaseDrain(client, queue, latency, progress, loopsEnded);
        for (int i = 0; i < inFlight; i++) {
          drain.next();
        }
      }
      long finished = progress.awaitFinishedNanos(DrainProgress.timeoutFor(jobs));
      serverCpu = CpuTime.nanos(server.pid()) - serverCpu;
      Optional<Syscalls> syscallsDuring =
          syscalls.flatMap(s -> Syscalls.of(server.pid()).map(after -> after.minus(s)));
      Optional<ServerThreadCpu> threadsDuring =
          threads.flatMap(taken -> ServerThreadCpu.since(taken, pid));
      ClientCpu.Interval clientCpuDuring = clientCpu.since(clientCpuStart);
      ServerCounts during = ServerProcess.counts(admin).minus(before);
      awaitLoopsEnded(loopsEnded);
      return new EndToEndDrain.Result(
          jobs,
          finished - start,
          latency,
          during,
          0,
          serverCpu,
          clientCpuDuring.clientNanos(),
          clientCpuDuring.samplingNanos(),
          syscallsDuring,
          threadsDuring);
    } finally {
      clients.forEach(RelayClient::close);
    }
  }

  /** One loop's next LEASE for one job; its ACK, once answered, starts the one after. */
  private void next() {
    long leaseSent = System.nanoTime();
    client
        .lease(queues, 1, LEASE_DURATION, Duration.ZERO)
        .whenComplete(
            (leased, error) -> {
              if (error != null) {
                end(error);
              } else if (leased.isEmpty()) {
                loopsEnded.countDown();
              } else {
                ack(leased.get(0), leaseSent);
              }
            });
  }

  private void ack(Job job, long leaseSent) {
    client
        .ack(job.id(), job.token())
        .whenComplete(
            (ok, error) -> {
              if (error != null) {
                end(error);
                return;
              }
              long now = System.nanoTime();
              latency.recordValue(now - leaseSent);
              progress.acked(now);
              next();
            });
  }

  private void end(Throwable error) {
    progress.fail(error);
    loopsEnded.countDown();
  }

  /**
   * After the last ACK every loop's final LEASE comes back empty within a round trip; waiting for
   * them keeps a LEASE of this drain from overlapping the next measurement.
   */
  private static void awaitLoopsEnded(CountDownLatch loopsEnded) {
    try {
      if (!loopsEnded.await(DrainProgress.timeoutFor(0).toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            loopsEnded.getCount() + " LEASE loops did not end after the drain");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted after a drain", e);
    }
  }
}
