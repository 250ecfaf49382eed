package io.changelake.console.pipeline;

import java.util.ArrayList;
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
 * Lineages of lake tables kept between polls of the pipelines page. Each poll looks at every
 * table's latest snapshot id and re-reads only tables that committed since, and of those only the
 * new snapshots (see {@link TableLineage#refresh}); tables are read in parallel. Tables are opened
 * once: the snapshot directory of a table does not move when its schema changes.
 */
final class LineageCache implements AutoCloseable {
  /** Reads of table metadata in flight at once: file or object-store round trips, not CPU. */
  private static final int THREADS = 8;

  private record Entry(FileStoreTable table, TableLineage lineage) {}

  private final Catalog catalog;
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
    this.catalog = catalog;
  }

  /**
   * The current lineage of each table, in parallel; a table that does not exist (any more) or is
   * not a file-store table maps to null, a table that cannot be read adds a problem and maps to
   * null.
   */
  Map<String, TableLineage> lineages(List<Identifier> tables, List<String> problems) {
    List<Future<TableLineage>> reads = new ArrayList<>();
    for (Identifier id : tables) {
      reads.add(readers.submit(() -> read(id)));
    }
    Map<String, TableLineage> result = new HashMap<>();
    for (int i = 0; i < tables.size(); i++) {
      String key = tables.get(i).getFullName();
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
    entries.put(key, new Entry(table, lineage));
    return lineage;
  }

  @Override
  public void close() {
    readers.shutdownNow();
  }
}
