package io.changelake.lsm.write;

import io.changelake.lsm.fault.BrokenWriterException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.paimon.memory.HeapMemorySegmentPool;
import org.apache.paimon.memory.MemoryOwner;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.memory.MemorySegmentPool;

/**
 * One write buffer for every table of a pool. When it runs out, Paimon's factory makes the table
 * holding the most memory flush (or spill), whichever table asked.
 *
 * <p>Paimon's own {@link MemoryPoolFactory#addOwners} chains every registered table forever, so
 * tables closed for idleness would keep piling up. Here each writer generation registers under a
 * key and is removed when it closes.
 *
 * <p>A generation sealed for a flush on a committer thread is {@link #suspend suspended}: it keeps
 * its pages until its flush returns them, but it is never asked to flush by another table (Paimon's
 * writer is not thread-safe), and a flush running off the task thread never makes another table
 * flush. The pages themselves are handed out and returned under a lock: both threads use them.
 * {@link #usedBufferSize} counts the generations taking rows only, what the next commit round will
 * hold (a sink commits early by it): a sealed generation's structures belong to the thread flushing
 * it.
 */
final class SharedMemoryPool extends MemoryPoolFactory {
  // set while a sealed generation flushes on this thread: it must not flush the task's writers
  private static final ThreadLocal<Boolean> FLUSHING_OFF_THREAD =
      ThreadLocal.withInitial(() -> false);

  private final Map<Object, Iterable<MemoryOwner>> ownersByTable = new ConcurrentHashMap<>();
  // sealed generations flushing on another thread
  private final Set<Object> suspended = ConcurrentHashMap.newKeySet();
  private Object registering;
  private final LockedPool pages;
  private final long totalPages;

  SharedMemoryPool(long budgetBytes, int pageSize) {
    this(new LockedPool(new HeapMemorySegmentPool(budgetBytes, pageSize)), budgetBytes / pageSize);
  }

  private SharedMemoryPool(LockedPool pages, long totalPages) {
    super(pages);
    this.pages = pages;
    this.totalPages = totalPages;
    super.addOwners(() -> allOwners().iterator());
  }

  /**
   * True when at least half of the buffer is free, so a generation sealed now leaves the next one
   * room to take rows while it flushes elsewhere. When the sealed one would hold more, the seal
   * flushes on the caller's thread instead: the sealed generation is never preempted, so a new
   * generation starting in a nearly full buffer could not get even its first page for a large row
   * (Paimon's "Error getting first segment for record collector", e2e HotToastRowTest with 10,000
   * updates of a TOASTed row).
   */
  boolean halfFree() {
    return pages.freePages() * 2L >= totalPages;
  }

  /** Registers the owners Paimon hands over while {@code table}'s writer is being built. */
  synchronized MemoryPoolFactory registering(Object table) {
    registering = table;
    return this;
  }

  @Override
  public synchronized MemoryPoolFactory addOwners(Iterable<MemoryOwner> newOwners) {
    if (registering == null) {
      // Paimon, not only this module, calls addOwners: a Paimon that hands owners over at another
      // moment than the one built with must fail the writer it builds, not account it to nobody
      throw new BrokenWriterException(
          "Paimon handed memory owners to the shared pool outside the building of a writer: call"
              + " registering(table) before handing the pool to Paimon; this build supports the"
              + " Paimon version it was built with only");
    }
    ownersByTable.put(registering, newOwners);
    registering = null;
    return this;
  }

  /** Forgets the owners of a closed table writer. */
  void unregister(Object table) {
    ownersByTable.remove(table);
    suspended.remove(table);
  }

  /**
   * Takes {@code generation} out of preemption until {@link #flushOffThread} resumes it; call on
   * the task thread, before handing the generation to another thread.
   */
  void suspend(Object generation) {
    suspended.add(generation);
  }

  /**
   * Runs the flush of the suspended {@code generation} (on any thread) without letting it preempt
   * other tables, then resumes it: its pages are back in the pool by then.
   */
  <T> T flushOffThread(Object generation, Supplier<T> flush) {
    boolean outer = FLUSHING_OFF_THREAD.get();
    FLUSHING_OFF_THREAD.set(true);
    try {
      return flush.get();
    } finally {
      FLUSHING_OFF_THREAD.set(outer);
      suspended.remove(generation);
    }
  }

  private Iterable<MemoryOwner> allOwners() {
    if (FLUSHING_OFF_THREAD.get()) {
      return Collections.emptyList();
    }
    List<MemoryOwner> owners = new ArrayList<>();
    for (Map.Entry<Object, Iterable<MemoryOwner>> table : ownersByTable.entrySet()) {
      if (suspended.contains(table.getKey())) {
        continue;
      }
      for (MemoryOwner owner : table.getValue()) {
        if (owner != null) {
          owners.add(owner);
        }
      }
    }
    return owners;
  }

  /** Paimon's heap pool is not thread-safe; a sealed generation returns its pages off-thread. */
  private static final class LockedPool implements MemorySegmentPool {
    private final MemorySegmentPool pool;

    LockedPool(MemorySegmentPool pool) {
      this.pool = pool;
    }

    @Override
    public int pageSize() {
      return pool.pageSize();
    }

    @Override
    public synchronized void returnAll(List<MemorySegment> memory) {
      pool.returnAll(memory);
    }

    @Override
    public synchronized int freePages() {
      return pool.freePages();
    }

    @Override
    public synchronized MemorySegment nextSegment() {
      return pool.nextSegment();
    }
  }
}
