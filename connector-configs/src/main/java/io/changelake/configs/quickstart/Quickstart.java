package io.changelake.configs.quickstart;

import io.changelake.configs.platform.EmbeddedPlatform;
import io.changelake.configs.platform.PlatformSettings;
import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectRestException;
import io.changelake.configs.rest.ConnectorState;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The quickstart: the embedded platform, then Debezium -> Changelake sink -> Paimon table ->
 * Changelake source -> topic, live from a throwaway PostgreSQL or replayed from recorded events.
 */
public final class Quickstart {
  private static final Duration STEP_TIMEOUT = Duration.ofMinutes(3);
  private static final int CHANGELOG_EVENTS_SHOWN = 12;
  private static final int STEPS = 6;
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

  /**
   * What to run.
   *
   * @param platform the embedded platform's settings
   * @param postgresBin PostgreSQL server binaries for the live chain; empty to replay
   * @param recordTo write the Debezium events of a live run to this file
   */
  public record Options(
      PlatformSettings platform, Optional<Path> postgresBin, Optional<Path> recordTo) {}

  private final Options options;
  private final PrintWriter out;
  private final long started = System.nanoTime();
  private final String warehouse;
  private final LakeTable table;
  private int step;

  public Quickstart(Options options, PrintWriter out) {
    this.options = options;
    this.out = out;
    this.warehouse = options.platform().warehouse().toString();
    this.table = new LakeTable(warehouse, QuickstartConnectors.LAKE_TABLE);
  }

  /** Starts the embedded platform (the first step). */
  public EmbeddedPlatform startPlatform() {
    step("Starting Kafka (KRaft) and Kafka Connect in " + options.platform().stateDir());
    EmbeddedPlatform platform = EmbeddedPlatform.start(options.platform());
    detail(
        "Kafka "
            + options.platform().bootstrapServers()
            + ", Connect "
            + options.platform().connectUrl());
    return platform;
  }

  /** Runs the chain on a started platform and prints the report. */
  public void run(EmbeddedPlatform platform) throws IOException {
    ConnectClient client = platform.client();
    String bootstrap = platform.settings().bootstrapServers();
    try (ChangeFeed feed = feed(bootstrap)) {
      feed.startSnapshot();
      if (feed instanceof LiveFeed live) {
        detail("port " + live.port() + ", table public.customers with 3 rows");
      } else {
        detail(
            "the 3 rows of Debezium's initial snapshot, into topic " + DemoDatabase.DEBEZIUM_TOPIC);
      }

      step(
          feed instanceof LiveFeed
              ? "Deploying Debezium (pgoutput) and the Changelake sink"
              : "Deploying the Changelake sink");
      feed.connectors().forEach((name, config) -> deploy(client, name, config));
      deploy(client, QuickstartConnectors.SINK, QuickstartConnectors.sink(warehouse));

      step("Waiting for the snapshot to reach the lake table, then publishing its changelog");
      awaitTable("3 rows in " + tableName(), DemoDatabase::initialLoaded, client);
      deploySource(client);
      awaitChangelog(
          bootstrap, client, "the 3 rows of the full-state read", events -> events.size() >= 3);

      step(
          feed instanceof LiveFeed
              ? "Changing the database while everything runs"
              : "Replaying the recorded changes");
      for (String change : feed.applyChanges()) {
        detail(change);
      }
      awaitTable("the changes in " + tableName(), DemoDatabase::changesApplied, client);

      step("Waiting for the changes in topic " + QuickstartConnectors.CHANGELOG_TOPIC);
      awaitChangelog(bootstrap, client, "the changes", Quickstart::hasLastRow);
      if (options.recordTo().isPresent()) {
        int count =
            RecordedEvents.record(bootstrap, DemoDatabase.DEBEZIUM_TOPIC, options.recordTo().get());
        detail("recorded " + count + " Debezium events to " + options.recordTo().get());
      }
      if (feed instanceof LiveFeed) {
        // the replication slot goes away with the database: stop Debezium before it
        client.delete(QuickstartConnectors.DEBEZIUM);
      }
    }
    report(bootstrap);
  }

  private ChangeFeed feed(String bootstrap) throws IOException {
    if (options.postgresBin().isPresent()) {
      Path bin = options.postgresBin().get();
      step(
          "Starting a throwaway PostgreSQL ("
              + bin.getParent().getFileName()
              + ", wal_level=logical)");
      return new LiveFeed(bin);
    }
    step("Replaying Debezium events recorded from PostgreSQL (no local server, or --replay)");
    return new ReplayFeed(bootstrap);
  }

  /**
   * The changelog source starts once the table has its first snapshot; it publishes the table's
   * full state, then every later change.
   */
  private void deploySource(ConnectClient client) {
    deploy(client, QuickstartConnectors.SOURCE, QuickstartConnectors.source(warehouse));
  }

  private void deploy(ConnectClient client, String name, Map<String, String> config) {
    client.putConfig(name, config);
    detail("deployed " + name + " (" + config.get("connector.class") + ")");
  }

  private String tableName() {
    return table.identifier().getFullName();
  }

  private void awaitTable(
      String what, Predicate<List<Map<String, Object>>> done, ConnectClient client) {
    long deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
    String last = "";
    while (true) {
      Optional<LakeTable.State> state = table.read();
      String now =
          state
              .map(
                  s ->
                      s.rows().size()
                          + " rows, "
                          + s.snapshots().size()
                          + " snapshots, schema "
                          + (s.schemas().isEmpty()
                              ? "-"
                              : s.schemas().get(s.schemas().size() - 1).id()))
              .orElse("table not created yet");
      if (!now.equals(last)) {
        detail(tableName() + ": " + now);
        last = now;
      }
      if (state.isPresent() && done.test(state.get().rows())) {
        return;
      }
      awaitOneMore(client, deadline, what + " (last: " + now + ")");
    }
  }

  /** Fails when a connector failed or the step's deadline passed, else waits a little. */
  private void awaitOneMore(ConnectClient client, long deadline, String waitingFor) {
    failIfAnyConnectorFailed(client);
    if (System.nanoTime() > deadline) {
      throw new QuickstartException(
          "Timed out after " + STEP_TIMEOUT.toMinutes() + " min waiting for " + waitingFor);
    }
    sleep();
  }

  /** Every change has reached the table before: the changelog is complete once it holds row 4. */
  private static boolean hasLastRow(List<ChangeEvent> events) {
    return events.stream().anyMatch(e -> e.after().contains("id=4"));
  }

  private void awaitChangelog(
      String bootstrap, ConnectClient client, String what, Predicate<List<ChangeEvent>> done)
      throws IOException {
    long deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
    int lastCount = -1;
    while (true) {
      List<ChangeEvent> events = changelog(bootstrap);
      if (events.size() != lastCount) {
        detail(QuickstartConnectors.CHANGELOG_TOPIC + ": " + events.size() + " events");
        lastCount = events.size();
      }
      if (done.test(events)) {
        return;
      }
      awaitOneMore(
          client,
          deadline,
          what
              + " in topic "
              + QuickstartConnectors.CHANGELOG_TOPIC
              + " ("
              + lastCount
              + " events so far)");
    }
  }

  private static List<ChangeEvent> changelog(String bootstrap) throws IOException {
    List<ChangeEvent> events = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record :
        TopicReader.readAll(bootstrap, QuickstartConnectors.CHANGELOG_TOPIC)) {
      events.add(ChangeEvent.parse(record.value()));
    }
    return events;
  }

  private void failIfAnyConnectorFailed(ConnectClient client) {
    for (String name : client.connectors()) {
      ConnectorState state;
      try {
        state = client.status(name);
      } catch (ConnectRestException e) {
        continue;
      }
      if (state.anyFailed()) {
        String trace =
            state.tasks().stream()
                .filter(t -> ConnectorState.FAILED.equals(t.state()))
                .map(t -> t.trace().orElse(""))
                .findFirst()
                .orElse(state.connector().trace().orElse(""));
        throw new QuickstartException(
            "Connector "
                + name
                + " failed:\n"
                + String.join("\n", trace.lines().limit(20).toList()));
      }
    }
  }

  private void report(String bootstrap) throws IOException {
    LakeTable.State state = table.read().orElseThrow();
    out.println();
    out.println("=== Table " + tableName() + " (warehouse " + warehouse + ")");
    printRows(state);
    out.println();
    out.println("=== Schema history");
    LakeTable.SchemaVersion previous = null;
    for (LakeTable.SchemaVersion schema : state.schemas()) {
      out.printf("  schema %d: %s%n", schema.id(), describe(schema, previous));
      previous = schema;
    }
    out.println();
    out.println("=== Snapshots");
    out.println("  id  time      kind       rows added  total rows  schema");
    for (LakeTable.SnapshotInfo s : state.snapshots()) {
      out.printf(
          "  %-3d %s  %-9s  %10s  %10s  %d%n",
          s.id(),
          TIME.format(Instant.ofEpochMilli(s.timeMillis())),
          s.commitKind(),
          s.deltaRecords() == null ? "-" : s.deltaRecords(),
          s.totalRecords() == null ? "-" : s.totalRecords(),
          s.schemaId());
    }
    out.println();
    List<ChangeEvent> events = changelog(bootstrap);
    out.printf(
        "=== Changelog published to topic %s (first %d of %d events)%n",
        QuickstartConnectors.CHANGELOG_TOPIC,
        Math.min(CHANGELOG_EVENTS_SHOWN, events.size()),
        events.size());
    events.stream().limit(CHANGELOG_EVENTS_SHOWN).forEach(e -> out.println("  " + e.describe()));
    out.println();
    out.println("=== Reading the table elsewhere");
    EngineHints.print(out, warehouse, QuickstartConnectors.LAKE_TABLE);
    out.println();
    out.printf("Done in %ds.%n", Duration.ofNanos(System.nanoTime() - started).toSeconds());
    out.flush();
  }

  private void printRows(LakeTable.State state) {
    List<String> names = state.columns().stream().map(LakeTable.Column::name).toList();
    List<Integer> widths = new ArrayList<>();
    for (String name : names) {
      int width = name.length();
      for (Map<String, Object> row : state.rows()) {
        width = Math.max(width, String.valueOf(row.get(name)).length());
      }
      widths.add(width);
    }
    StringBuilder header = new StringBuilder("  ");
    StringBuilder rule = new StringBuilder("  ");
    for (int i = 0; i < names.size(); i++) {
      header.append(String.format("%-" + widths.get(i) + "s  ", names.get(i)));
      rule.append("-".repeat(widths.get(i))).append("  ");
    }
    out.println(header.toString().stripTrailing());
    out.println(rule.toString().stripTrailing());
    for (Map<String, Object> row : state.rows()) {
      StringBuilder line = new StringBuilder("  ");
      for (int i = 0; i < names.size(); i++) {
        line.append(String.format("%-" + widths.get(i) + "s  ", row.get(names.get(i))));
      }
      out.println(line.toString().stripTrailing());
    }
    out.printf("  (%d rows)%n", state.rows().size());
  }

  private static String describe(LakeTable.SchemaVersion schema, LakeTable.SchemaVersion previous) {
    if (previous == null) {
      return schema.columns().stream().map(c -> c.name() + " " + c.type()).toList()
          + ", primary key "
          + schema.primaryKeys();
    }
    List<String> changes = new ArrayList<>();
    for (LakeTable.Column column : schema.columns()) {
      if (!previous.columns().contains(column)) {
        changes.add("+ " + column.name() + " " + column.type());
      }
    }
    for (LakeTable.Column column : previous.columns()) {
      if (!schema.columns().contains(column)) {
        changes.add("- " + column.name() + " " + column.type());
      }
    }
    return changes.isEmpty() ? "(options or internal columns changed)" : String.join(", ", changes);
  }

  private void step(String text) {
    step++;
    out.printf("[%d/%d] %s%n", step, STEPS, text);
    out.flush();
  }

  private void detail(String text) {
    out.printf("      %3ds  %s%n", Duration.ofNanos(System.nanoTime() - started).toSeconds(), text);
    out.flush();
  }

  private static void sleep() {
    try {
      Thread.sleep(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QuickstartException("Interrupted");
    }
  }
}
