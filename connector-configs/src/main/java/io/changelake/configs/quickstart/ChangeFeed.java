package io.changelake.configs.quickstart;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Where the quickstart's Debezium events come from: a live PostgreSQL with Debezium, or the
 * recorded events of such a run. Both put the same events on the same topic.
 */
interface ChangeFeed extends AutoCloseable {
  /** Starts the feed; the three rows of the initial snapshot go to the Debezium topic. */
  void startSnapshot() throws IOException;

  /** Connectors this feed needs, by name (Debezium for the live feed). */
  Map<String, Map<String, String>> connectors();

  /** Makes the demo changes (update, delete, ALTER TABLE ADD COLUMN, ...); returns what it did. */
  List<String> applyChanges() throws IOException;

  @Override
  void close();
}
