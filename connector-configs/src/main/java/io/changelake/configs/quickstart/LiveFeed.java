package io.changelake.configs.quickstart;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Debezium capturing a throwaway PostgreSQL cluster. */
final class LiveFeed implements ChangeFeed {
  private final Path bin;
  private LocalPostgres postgres;

  LiveFeed(Path bin) {
    this.bin = bin;
  }

  @Override
  public void startSnapshot() {
    postgres = LocalPostgres.start(bin, DemoDatabase.DATABASE);
    postgres.execute(DemoDatabase.DATABASE, DemoDatabase.CREATE.toArray(String[]::new));
  }

  int port() {
    return postgres.port();
  }

  @Override
  public Map<String, Map<String, String>> connectors() {
    return Map.of(QuickstartConnectors.DEBEZIUM, QuickstartConnectors.debezium(postgres.port()));
  }

  @Override
  public List<String> applyChanges() {
    List<String> done = new ArrayList<>();
    for (DemoDatabase.Change change : DemoDatabase.CHANGES) {
      postgres.execute(DemoDatabase.DATABASE, change.sql());
      done.add(change.description());
    }
    return done;
  }

  @Override
  public void close() {
    if (postgres != null) {
      postgres.close();
    }
  }
}
