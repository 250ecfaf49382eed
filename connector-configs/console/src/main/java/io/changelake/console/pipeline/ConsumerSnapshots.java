package io.changelake.console.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;

/** The registered consumers of a table and the next snapshot each will read. */
final class ConsumerSnapshots {
  private ConsumerSnapshots() {}

  static List<Map.Entry<String, Long>> read(Catalog catalog, Identifier id) {
    try {
      Table table = catalog.getTable(id);
      if (!(table instanceof FileStoreTable fileStore)) {
        return List.of();
      }
      ConsumerManager consumers = new ConsumerManager(fileStore.fileIO(), fileStore.location());
      return new ArrayList<>(consumers.consumers().entrySet());
    } catch (Catalog.TableNotExistException e) {
      return List.of();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
