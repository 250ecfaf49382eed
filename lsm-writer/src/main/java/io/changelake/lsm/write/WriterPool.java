package io.changelake.lsm.write;

import io.changelake.lsm.commit.CommitFence;
import io.changelake.lsm.fault.BrokenWriterException;
import io.changelake.lsm.table.LakeTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.disk.IOManager;

/**
 * The writers of one task, one per table, sharing one memory budget and one spill directory. Ingest
 * writers are write-only; compaction is left to {@link io.changelake.lsm.compact.Compactor}.
 *
 * <p>Not meant for concurrent use by several threads (a sink task calls it from its one thread);
 * methods are synchronized so a stray call from another thread cannot corrupt it.
 */
public final class WriterPool implements AutoCloseable {
  private final Catalog catalog;
  private final WriterSettings settings;
  private final IOManager ioManager;
  private final SharedMemoryPool memory;
  // one instance per pool (per task session): a newer pool under the same commit user fences this
  private final CommitFence fence = CommitFence.startingNow();
  private final PooledTableWriter.Shared shared;
  private final Map<Identifier, PooledTableWriter> writers = new LinkedHashMap<>();
  private boolean closed;

  public WriterPool(Catalog catalog, WriterSettings settings) {
    this.catalog = catalog;
    this.settings = settings;
    try {
      Files.createDirectories(settings.spillDirectory());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot create the spill directory " + settings.spillDirectory(), e);
    }
    long pageSize = CoreOptions.PAGE_SIZE.defaultValue().getBytes();
    if (settings.memoryBudgetBytes() < 4 * pageSize) {
      throw new IllegalArgumentException(
          "The write memory budget of "
              + settings.memoryBudgetBytes()
              + " bytes is too small: give at least "
              + 4 * pageSize
              + " bytes (4 pages)");
    }
    this.ioManager = IOManager.create(settings.spillDirectory().toString());
    this.memory = new SharedMemoryPool(settings.memoryBudgetBytes(), (int) pageSize);
    this.shared =
        new PooledTableWriter.Shared(
            settings.commitUser(),
            ioManager,
            memory,
            fence,
            // versions kept for lookups live on the heap next to the shared buffer: bound them
            memory.totalBufferSize() / 4);
  }

  /** The writer of {@code table}, opened on first use (on the table's latest schema). */
  public synchronized TableWriter writer(Identifier table) {
    if (closed) {
      // a flush or commit that outlives the task's stop: its rows are uncommitted and are read
      // again from the committed offsets by whoever writes next, as for any discarded writer
      throw new BrokenWriterException(
          "The writer pool of '" + settings.commitUser() + "' is closed; table " + table);
    }
    PooledTableWriter writer = writers.get(table);
    if (writer == null) {
      writer = new PooledTableWriter(table, LakeTables.open(catalog, table), shared);
      writers.put(table, writer);
    }
    return writer;
  }

  /** Closes writers idle longer than the timeout that hold no uncommitted data. */
  public synchronized void closeIdle() {
    long now = System.nanoTime();
    List<Exception> failures = new ArrayList<>();
    for (Iterator<PooledTableWriter> it = writers.values().iterator(); it.hasNext(); ) {
      PooledTableWriter writer = it.next();
      if (!writer.hasUncommittedRows()
          && writer.idleNanos(now) >= settings.idleTimeout().toNanos()) {
        it.remove();
        try {
          writer.close();
        } catch (Exception e) {
          failures.add(e);
        }
      }
    }
    throwFirst(failures, "Closing idle writers");
  }

  /**
   * Closes every writer without committing, dropping buffered rows and commits still pending; the
   * pool stays usable and opens writers afresh on next use. For a caller that re-reads everything
   * not committed from Kafka: a pending commit may have landed or not, and only the table's
   * committed offsets tell which.
   */
  public synchronized void discardUncommitted() {
    List<Exception> failures = closeWriters();
    throwFirst(failures, "Discarding the uncommitted rows of '" + settings.commitUser() + "'");
  }

  /** Closes and forgets every writer; returns what failed, so the caller adds its own failures. */
  private List<Exception> closeWriters() {
    List<Exception> failures = new ArrayList<>();
    for (PooledTableWriter writer : writers.values()) {
      try {
        writer.close();
      } catch (Exception e) {
        failures.add(e);
      }
    }
    writers.clear();
    return failures;
  }

  /** Tables with an open writer. */
  public synchronized List<Identifier> openTables() {
    return List.copyOf(writers.keySet());
  }

  /**
   * Bytes currently buffered across all tables, for size-triggered commits: the shared write buffer
   * and the row versions writers keep so lookups of keys they just wrote need no commit.
   */
  public synchronized long bufferedBytes() {
    long kept = 0;
    for (PooledTableWriter writer : writers.values()) {
      kept += writer.bufferedVersionBytes();
    }
    return memory.usedBufferSize() + kept;
  }

  /** The shared budget, in bytes (a whole number of pages). */
  public long memoryBudgetBytes() {
    return memory.totalBufferSize();
  }

  /** How often a table had to flush because another needed memory. */
  public synchronized long memoryPreemptions() {
    return memory.bufferPreemptCount();
  }

  /** Closes every writer; rows not committed are dropped (they are re-read from Kafka). */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<Exception> failures = closeWriters();
    try {
      ioManager.close();
    } catch (Exception e) {
      failures.add(e);
    }
    throwFirst(failures, "Closing the writer pool of '" + settings.commitUser() + "'");
  }

  private static void throwFirst(List<Exception> failures, String what) {
    if (failures.isEmpty()) {
      return;
    }
    BrokenWriterException error =
        new BrokenWriterException(what + " failed: " + failures.get(0).getMessage());
    failures.forEach(error::addSuppressed);
    throw error;
  }
}
