package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What the client's own pools keep from the fixed thread pools they replaced: their names, daemon
 * threads, the builder's context class loader, and a cap that a task blocked in {@code join()} does
 * not raise.
 */
final class ClientPoolsTest {
  private static final long WAIT_SECONDS = 15;

  @Test
  void threads_are_named_daemons_with_the_builders_context_class_loader() throws Exception {
    ClassLoader app = new URLClassLoader(new URL[0], getClass().getClassLoader());
    Thread builder = Thread.currentThread();
    ClassLoader before = builder.getContextClassLoader();
    ExecutorService pool;
    builder.setContextClassLoader(app);
    try {
      pool = ClientPools.newPool("relay-test", 2, Duration.ofSeconds(30));
    } finally {
      builder.setContextClassLoader(before);
    }
    try {
      CompletableFuture<Thread> ran = new CompletableFuture<>();
      pool.execute(() -> ran.complete(Thread.currentThread()));

      Thread thread = ran.get(WAIT_SECONDS, TimeUnit.SECONDS);

      assertThat(thread.getName()).startsWith("relay-test-");
      assertThat(thread.isDaemon()).isTrue();
      assertThat(thread.getContextClassLoader()).isSameAs(app);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void tasks_blocked_in_join_hold_their_threads_and_the_pool_adds_none() throws Exception {
    ExecutorService pool = ClientPools.newPool("relay-test", 2, Duration.ofSeconds(30));
    CompletableFuture<Void> release = new CompletableFuture<>();
    Set<Thread> threads = ConcurrentHashMap.newKeySet();
    CountDownLatch blocked = new CountDownLatch(2);
    AtomicInteger ranAfter = new AtomicInteger();
    try {
      for (int i = 0; i < 2; i++) {
        pool.execute(
            () -> {
              threads.add(Thread.currentThread());
              blocked.countDown();
              release.join();
            });
      }
      assertThat(blocked.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      CountDownLatch third = new CountDownLatch(1);
      pool.execute(
          () -> {
            threads.add(Thread.currentThread());
            ranAfter.incrementAndGet();
            third.countDown();
          });

      // The third task waits for a thread instead of getting a third one.
      assertThat(third.getCount()).isEqualTo(1);
      release.complete(null);
      assertThat(third.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      assertThat(ranAfter.get()).isEqualTo(1);
      assertThat(threads).hasSize(2);
    } finally {
      release.complete(null);
      pool.shutdownNow();
    }
  }
}
