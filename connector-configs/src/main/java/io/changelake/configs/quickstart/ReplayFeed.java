package io.changelake.configs.quickstart;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/** The recorded Debezium events, produced in two parts: the snapshot, then the changes. */
final class ReplayFeed implements ChangeFeed {
  private final String bootstrapServers;
  private final List<RecordedEvents.Event> events;

  ReplayFeed(String bootstrapServers) throws IOException {
    this.bootstrapServers = bootstrapServers;
    this.events = RecordedEvents.load();
  }

  @Override
  public void startSnapshot() {
    RecordedEvents.produce(bootstrapServers, events.subList(0, snapshotSize()));
  }

  @Override
  public Map<String, Map<String, String>> connectors() {
    return Map.of();
  }

  @Override
  public List<String> applyChanges() {
    RecordedEvents.produce(bootstrapServers, events.subList(snapshotSize(), events.size()));
    return DemoDatabase.CHANGES.stream().map(DemoDatabase.Change::description).toList();
  }

  /** The snapshot part is the leading run of read events (op r). */
  private int snapshotSize() {
    int i = 0;
    while (i < events.size() && events.get(i).isSnapshotRead()) {
      i++;
    }
    return i;
  }

  @Override
  public void close() {}
}
