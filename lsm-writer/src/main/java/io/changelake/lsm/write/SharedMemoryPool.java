package io.changelake.lsm.write;

import io.changelake.lsm.fault.BrokenWriterException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.paimon.memory.HeapMemorySegmentPool;
import org.apache.paimon.memory.MemoryOwner;
import org.apache.paimon.memory.MemoryPoolFactory;

/**
 * One write buffer for every table of a pool. When it runs out, Paimon's factory makes the table
 * holding the most memory flush (or spill), whichever table asked.
 *
 * <p>Paimon's own {@link MemoryPoolFactory#addOwners} chains every registered table forever, so
 * tables closed for idleness would keep piling up. Here each table registers under a key and is
 * removed when its writer closes.
 */
final class SharedMemoryPool extends MemoryPoolFactory {
  private final Map<Object, Iterable<MemoryOwner>> ownersByTable = new ConcurrentHashMap<>();
  private Object registering;

  SharedMemoryPool(long budgetBytes, int pageSize) {
    super(new HeapMemorySegmentPool(budgetBytes, pageSize));
    super.addOwners(this::allOwners);
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
  }

  private Iterator<MemoryOwner> allOwners() {
    List<MemoryOwner> owners = new ArrayList<>();
    for (Iterable<MemoryOwner> tableOwners : ownersByTable.values()) {
      for (MemoryOwner owner : tableOwners) {
        if (owner != null) {
          owners.add(owner);
        }
      }
    }
    return owners.iterator();
  }
}
