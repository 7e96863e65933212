package dev.relay.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.HdrHistogram.Histogram;

/**
 * The disk's raw durable-write rate, measured in the same run as the figures it bounds: a loop that
 * overwrites one 4 KiB block of a preallocated file (cycling over 1 MiB, as a reused WAL does) and
 * forces it to disk with {@link FileChannel#force(boolean) force(false)}, the fdatasync that a
 * SQLite commit costs at least once. One commit per operation cannot beat this rate.
 */
final class FsyncProbe {
  static final int BLOCK_BYTES = 4096;
  static final int BLOCKS = 256;

  private FsyncProbe() {}

  /**
   * What the loop achieved.
   *
   * @param perSecond write+fsync operations per second
   * @param cpuMicrosPerOp CPU time (user + system) of the probing thread per operation; on a
   *     virtual machine an fsync can cost far more CPU than on bare metal
   * @param p50Micros the median time of one write+fsync
   */
  record Result(double perSecond, double cpuMicrosPerOp, double p50Micros) {}

  /** Runs the loop for {@code duration} in a file under {@code dir} that is deleted afterwards. */
  static Result measure(Path dir, Duration duration) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Path file = dir.resolve("fsync-probe.bin");
    try (FileChannel channel =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE,
            StandardOpenOption.DELETE_ON_CLOSE)) {
      ByteBuffer block = ByteBuffer.allocateDirect(BLOCK_BYTES);
      for (int i = 0; i < BLOCKS; i++) {
        channel.write(block.clear(), (long) i * BLOCK_BYTES);
      }
      channel.force(true);
      long cpuStart = threads.getCurrentThreadCpuTime();
      long start = System.nanoTime();
      long deadline = start + duration.toNanos();
      Histogram opNanos = new Histogram(3);
      long ops = 0;
      long now = start;
      while (now - deadline < 0) {
        block.clear().putLong(0, ops);
        channel.write(block, (ops % BLOCKS) * BLOCK_BYTES);
        channel.force(false);
        ops++;
        long opStart = now;
        now = System.nanoTime();
        opNanos.recordValue(now - opStart);
      }
      long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
      return new Result(
          ops * 1e9 / (now - start), cpu / 1e3 / ops, opNanos.getValueAtPercentile(50) / 1e3);
    } catch (IOException e) {
      throw new UncheckedIOException("fsync probe in " + dir + " failed: " + e.getMessage(), e);
    } finally {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // DELETE_ON_CLOSE already removed it.
      }
    }
  }
}
