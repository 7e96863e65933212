package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.DecoderException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutOfMemoryTest {
  private static final OutOfMemoryError JDK_DIRECT =
      new OutOfMemoryError("Cannot reserve 16384 bytes of direct buffer memory (allocated: 1)");
  private static final OutOfMemoryError HEAP = new OutOfMemoryError("Java heap space");

  @Test
  void direct_memory_errors_are_told_apart_from_heap_errors_through_wrappers() {
    assertThat(OutOfMemory.isDirect(new DecoderException(JDK_DIRECT))).isTrue();
    assertThat(OutOfMemory.isHeap(new DecoderException(JDK_DIRECT))).isFalse();
    assertThat(OutOfMemory.isHeap(new RuntimeException(HEAP))).isTrue();
    assertThat(OutOfMemory.isDirect(HEAP)).isFalse();
    assertThat(OutOfMemory.isHeap(new IllegalStateException("no"))).isFalse();
    assertThat(OutOfMemory.isDirect(new IllegalStateException("no"))).isFalse();
  }

  @Test
  void the_halting_handler_halts_with_exit_code_3_on_a_heap_error_only() {
    List<Integer> halts = new ArrayList<>();
    Thread.UncaughtExceptionHandler handler = OutOfMemory.haltingHandler(halts::add);

    handler.uncaughtException(Thread.currentThread(), new IllegalStateException("a bug"));
    handler.uncaughtException(Thread.currentThread(), JDK_DIRECT);
    assertThat(halts).isEmpty();

    handler.uncaughtException(Thread.currentThread(), HEAP);
    assertThat(halts).containsExactly(3);
  }

  @Test
  void escalation_reaches_the_threads_handler_for_heap_errors_only() throws Exception {
    List<Throwable> seen = new ArrayList<>();
    Thread t =
        new Thread(
            () -> {
              OutOfMemory.escalateIfHeap(new RuntimeException("not memory"));
              OutOfMemory.escalateIfHeap(JDK_DIRECT);
              OutOfMemory.escalateIfHeap(HEAP);
            });
    t.setUncaughtExceptionHandler((thread, e) -> seen.add(e));
    t.start();
    t.join();

    assertThat(seen).containsExactly(HEAP);
  }
}
