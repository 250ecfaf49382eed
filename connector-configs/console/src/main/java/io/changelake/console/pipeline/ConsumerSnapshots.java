package io.changelake.console.pipeline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.table.FileStoreTable;

/** The registered consumers of a table and the next snapshot each will read. */
final class ConsumerSnapshots {
  private ConsumerSnapshots() {}

  /** None for a table that does not exist (null). */
  static List<Map.Entry<String, Long>> read(FileStoreTable table) {
    if (table == null) {
      return List.of();
    }
    try {
      ConsumerManager consumers = new ConsumerManager(table.fileIO(), table.location());
      return new ArrayList<>(consumers.consumers().entrySet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
