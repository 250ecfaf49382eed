package io.changelake.source.assign;

import io.changelake.source.TableSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;

/** Finds the tables a connector publishes, with their bucket counts. */
public final class TableDiscovery {
  private final Catalog catalog;
  private final TableSelector selector;

  public TableDiscovery(Catalog catalog, TableSelector selector) {
    this.catalog = catalog;
    this.selector = selector;
  }

  /**
   * The selected tables that exist now, each with its fixed bucket count ({@code -1} and below:
   * dynamic buckets). Sorted by name, so two calls can be compared with {@code equals}.
   */
  public Map<Identifier, Integer> discover() {
    Map<Identifier, Integer> found =
        new TreeMap<>((a, b) -> a.getFullName().compareTo(b.getFullName()));
    for (Identifier candidate : candidates()) {
      if (!selector.selects(candidate) || candidate.isSystemTable()) {
        continue;
      }
      Table table;
      try {
        table = catalog.getTable(candidate);
      } catch (Catalog.TableNotExistException e) {
        continue; // listed but not created yet (or dropped meanwhile): picked up on a later round
      }
      if (table instanceof FileStoreTable fileStoreTable) {
        found.put(candidate, fileStoreTable.bucketSpec().getNumBuckets());
      }
    }
    return found;
  }

  private List<Identifier> candidates() {
    if (selector instanceof TableSelector.Listed listed) {
      return listed.tables();
    }
    List<Identifier> all = new ArrayList<>();
    for (String database : catalog.listDatabases()) {
      try {
        for (String table : catalog.listTables(database)) {
          all.add(Identifier.create(database, table));
        }
      } catch (Catalog.DatabaseNotExistException e) {
        // dropped between the two calls: nothing to publish from it
      }
    }
    return all;
  }
}
