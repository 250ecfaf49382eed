package io.changelake.console.pipeline;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;

/**
 * Lineages of lake tables kept between polls of the pipelines page. A poll reads tables it has not
 * seen yet, and looks again at the latest snapshot id of the {@link #CHECKS_PER_POLL} tables looked
 * at longest ago (every table, in a lake of fewer); only a table that committed since is re-read,
 * and of it only the new snapshots (see {@link TableLineage#refresh}). Tables are read in parallel
 * and opened once: the snapshot directory of a table does not move when its schema changes. So a
 * poll's work is bounded, and in a lake of 500 tables each is looked at every 5th poll (10 s at the
 * pages' 2 s), while its freshness, computed from the cached source time, still ages on every poll.
 */
final class LineageCache implements AutoCloseable {
  /** Reads of table metadata in flight at once: file or object-store round trips, not CPU. */
  private static final int THREADS = 8;

  /** Known tables whose latest snapshot id one poll looks at. */
  static final int CHECKS_PER_POLL = 100;

  private record Entry(FileStoreTable table, TableLineage lineage, long checkedAtNanos) {}

  private final Catalog catalog;
  private final int checksPerPoll;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final ExecutorService readers =
      Executors.newFixedThreadPool(
          THREADS,
          r -> {
            Thread t = new Thread(r, "changelake-console-lineage");
            t.setDaemon(true);
            return t;
          });

  LineageCache(Catalog catalog) {
    this(catalog, CHECKS_PER_POLL);
  }

  LineageCache(Catalog catalog, int checksPerPoll) {
    this.catalog = catalog;
    this.checksPerPoll = checksPerPoll;
  }

  /**
   * The current lineage of each table, in parallel; a table that does not exist (any more) or is
   * not a file-store table maps to null, a table that cannot be read adds a problem and maps to
   * null.
   */
  Map<String, TableLineage> lineages(List<Identifier> tables, List<String> problems) {
    Map<String, TableLineage> result = new HashMap<>();
    List<Identifier> toRead = new ArrayList<>();
    List<Identifier> known = new ArrayList<>();
    for (Identifier id : tables) {
      (entries.containsKey(id.getFullName()) ? known : toRead).add(id);
    }
    known.sort(
        Comparator.comparingLong(
            id -> {
              Entry e = entries.get(id.getFullName());
              return e == null ? Long.MIN_VALUE : e.checkedAtNanos();
            }));
    for (int i = 0; i < known.size(); i++) {
      Entry cached = entries.get(known.get(i).getFullName());
      if (i < checksPerPoll || cached == null) {
        toRead.add(known.get(i));
      } else {
        result.put(known.get(i).getFullName(), cached.lineage());
      }
    }
    List<Future<TableLineage>> reads = new ArrayList<>();
    for (Identifier id : toRead) {
      reads.add(readers.submit(() -> read(id)));
    }
    for (int i = 0; i < toRead.size(); i++) {
      String key = toRead.get(i).getFullName();
      try {
        result.put(key, reads.get(i).get());
      } catch (ExecutionException e) {
        problems.add("Table " + key + ": " + e.getCause().getMessage());
        result.put(key, null);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted reading the lake tables' snapshots", e);
      }
    }
    return result;
  }

  /** The table, opened once; null when it does not exist or is not a file-store table. */
  FileStoreTable table(Identifier id) {
    Entry entry = entries.get(id.getFullName());
    if (entry != null) {
      return entry.table();
    }
    try {
      Table table = catalog.getTable(id);
      return table instanceof FileStoreTable fileStore ? fileStore : null;
    } catch (Catalog.TableNotExistException e) {
      return null;
    }
  }

  /** Forgets tables not among {@code keep} ({@code db.table}): dropped or no longer shown. */
  void retainOnly(Set<String> keep) {
    entries.keySet().retainAll(keep);
  }

  private TableLineage read(Identifier id) {
    String key = id.getFullName();
    Entry entry = entries.get(key);
    FileStoreTable table = entry != null ? entry.table() : table(id);
    if (table == null) {
      entries.remove(key);
      return null;
    }
    TableLineage lineage = TableLineage.refresh(table, entry == null ? null : entry.lineage());
    entries.put(key, new Entry(table, lineage, System.nanoTime()));
    return lineage;
  }

  @Override
  public void close() {
    readers.shutdownNow();
  }
}
