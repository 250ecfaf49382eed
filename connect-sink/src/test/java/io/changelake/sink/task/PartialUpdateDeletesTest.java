package io.changelake.sink.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.compact.CompactionSettings;
import io.changelake.lsm.compact.Compactor;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.sink.testing.InputShapes;
import io.changelake.testkit.Change;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Deletes into a partial-update table with {@code table.delete-policy=remove-row} on real Paimon,
 * as PostgreSQL sends them with REPLICA IDENTITY DEFAULT: updates without a before image, deletes
 * whose before image holds only the key. A key updated and deleted in one commit round must be
 * gone, also when an older commit holds its first version.
 */
class PartialUpdateDeletesTest {
  static final TopicPartition PARTITION = new TopicPartition("shop.public.accounts", 0);
  static final DebeziumTable ACCOUNTS =
      DebeziumTable.builder("accounts")
          .topic(PARTITION.topic())
          .key("id", Schema.INT32_SCHEMA)
          .column("balance", Schema.OPTIONAL_INT64_SCHEMA)
          .column("status", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  @TempDir Path tmp;
  private long nextOffset;
  private InputShape shape;

  Map<String, String> props() {
    Map<String, String> props = new HashMap<>();
    props.put("name", "accounts-sink");
    props.put("paimon.warehouse", tmp.resolve("warehouse").toUri().toString());
    // every batch on the pipeline thread, as under load (the default leaves small ones in put)
    props.put("pipeline.thread.min.records", "1");
    props.put("writer.spill.dir", tmp.resolve("spill").toString());
    props.put("route.database", "lake");
    props.putAll(InputShapes.route(shape, "accounts"));
    props.putAll(InputShapes.sinkConfig(shape));
    props.put("table.merge-engine", "partial-update");
    props.put("table.delete-policy", "remove-row");
    props.put("table.changelog-producer", "lookup");
    props.put("table.buckets", "1");
    // commits only when the test says so
    props.put("commit.interval.ms", "3600000");
    props.put("compaction.interval.ms", "0");
    return props;
  }

  SinkRecord record(Change change) {
    long offset = nextOffset++;
    return change.atLsn(5000L + offset * 8).toSinkRecord(shape, PARTITION.partition(), offset);
  }

  static Struct row(int id, Long balance, String status) {
    return ACCOUNTS.row(id, balance, status);
  }

  SinkRecord snapshotRead(int id) {
    return record(ACCOUNTS.read(row(id, id * 10L, "new")));
  }

  /** REPLICA IDENTITY DEFAULT: no before image. */
  SinkRecord update(int id) {
    return record(ACCOUNTS.update(null, row(id, id * 10L + 1, "touched")));
  }

  /** REPLICA IDENTITY DEFAULT: the before image holds the key only. */
  SinkRecord delete(int id) {
    return record(ACCOUNTS.deleteKey(id));
  }

  /** Snapshot rows 1..n, updates of every third id, deletes of every seventh. */
  List<SinkRecord> changes(int n) {
    List<SinkRecord> records = new ArrayList<>();
    for (int id = 3; id <= n; id += 3) {
      records.add(update(id));
    }
    for (int id = 7; id <= n; id += 7) {
      records.add(delete(id));
    }
    return records;
  }

  /** What the source table holds after {@link #changes}. */
  static Map<Integer, List<Object>> expected(int n) {
    Map<Integer, List<Object>> rows = new TreeMap<>();
    for (int id = 1; id <= n; id++) {
      if (id % 7 != 0) {
        rows.put(id, id % 3 == 0 ? List.of(id * 10L + 1, "touched") : List.of(id * 10L, "new"));
      }
    }
    return rows;
  }

  List<SinkRecord> snapshot(int n) {
    List<SinkRecord> records = new ArrayList<>();
    for (int id = 1; id <= n; id++) {
      records.add(snapshotRead(id));
    }
    return records;
  }

  Map<Integer, List<Object>> rows() throws Exception {
    try (Catalog catalog = TestTables.localCatalog(tmp.resolve("warehouse"))) {
      Map<Integer, List<Object>> rows = new TreeMap<>();
      for (List<Object> row : LakeRows.read(catalog.getTable(table()))) {
        rows.put((Integer) row.get(0), row.subList(1, 3));
      }
      return rows;
    }
  }

  static Identifier table() {
    return Identifier.create("lake", "accounts");
  }

  void compact(boolean full) throws Exception {
    try (Catalog catalog = TestTables.localCatalog(tmp.resolve("warehouse"))) {
      new Compactor(CompactionSettings.defaults("test-compactor"), tmp.resolve("compaction"))
          .compact((FileStoreTable) catalog.getTable(table()), full);
    }
  }

  ChangelakeSinkTask start() {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new ChangelakeSinkTaskTest.Context());
    task.start(props());
    task.open(List.of(PARTITION));
    return task;
  }

  /** Commits what the task holds, as a rebalance does. */
  static void commit(ChangelakeSinkTask task) {
    task.close(List.of(PARTITION));
    task.open(List.of(PARTITION));
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void keysUpdatedAndDeletedInOneRoundAfterTheirSnapshotRoundAreGone(InputShape shape)
      throws Exception {
    this.shape = shape;
    ChangelakeSinkTask task = start();
    task.put(snapshot(50));
    commit(task);
    // 21 and 42 are updated and deleted in this round: Paimon merges the two in the write buffer
    task.put(changes(50));
    commit(task);
    task.stop();

    assertThat(rows()).isEqualTo(expected(50));
    compact(false);
    assertThat(rows()).isEqualTo(expected(50));
    compact(true);
    assertThat(rows()).isEqualTo(expected(50));
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void keysCreatedUpdatedAndDeletedInOneRoundAreGone(InputShape shape) throws Exception {
    this.shape = shape;
    ChangelakeSinkTask task = start();
    List<SinkRecord> records = snapshot(50);
    records.addAll(changes(50));
    task.put(records);
    commit(task);
    task.stop();

    assertThat(rows()).isEqualTo(expected(50));
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void updatesAndDeletesInSeparateRoundsCompactedInBetween(InputShape shape) throws Exception {
    this.shape = shape;
    ChangelakeSinkTask task = start();
    task.put(snapshot(50));
    commit(task);
    compact(false);
    List<SinkRecord> changes = changes(50);
    int updates = 50 / 3;
    task.put(changes.subList(0, updates));
    commit(task);
    task.put(changes.subList(updates, changes.size()));
    commit(task);
    task.stop();
    // the compaction merges the update and the delete of 21 and 42 into one delete
    compact(false);

    assertThat(rows()).isEqualTo(expected(50));
    compact(true);
    assertThat(rows()).isEqualTo(expected(50));
  }
}
