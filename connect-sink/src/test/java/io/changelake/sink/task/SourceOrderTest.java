package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.putWritten;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.sink.testing.InputShapes;
import io.changelake.testkit.Change;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order of a key's versions across task restarts, on real Paimon tables: deletes that arrive as
 * tombstones without a position, topics whose offsets start again, positions of another kind going
 * backwards, and truncates whose later rows were consumed first from other partitions or tasks.
 */
class SourceOrderTest {
  static final TopicPartition P0 = new TopicPartition("accounts", 0);
  static final TopicPartition P1 = new TopicPartition("accounts", 1);
  static final long TIMESTAMP = 1_700_000_000_000L;

  /** Source table {@code table}, whose changes all go to topic accounts. */
  static DebeziumTable accounts(String table) {
    return DebeziumTable.builder(table)
        .topic("accounts")
        .key("id", Schema.INT32_SCHEMA)
        .column("name", Schema.OPTIONAL_STRING_SCHEMA)
        .build();
  }

  static final DebeziumTable ACCOUNTS = accounts("accounts");

  @TempDir Path tmp;
  private final List<ChangelakeSinkTask> running = new ArrayList<>();

  Map<String, String> props(String inputFormat) {
    Map<String, String> props = new HashMap<>();
    props.put("name", "accounts-sink");
    props.put("paimon.warehouse", tmp.resolve("warehouse").toUri().toString());
    // every batch on the pipeline thread, as under load (the default leaves small ones in put)
    props.put("pipeline.thread.min.records", "1");
    props.put("writer.spill.dir", tmp.resolve("spill").toString());
    props.put("route.database", "lake");
    props.put("route.table.format", "accounts");
    props.put("input.format", inputFormat);
    props.put("table.buckets", "1");
    props.put("commit.interval.ms", "3600000");
    props.put("compaction.interval.ms", "0");
    return props;
  }

  /**
   * A flattened row; with {@code lsn} it carries {@code __lsn} (add.fields), without it no position
   * at all (the transform's defaults).
   */
  static SinkRecord flat(TopicPartition tp, long offset, int id, String name, Long lsn) {
    Change change = ACCOUNTS.update(null, ACCOUNTS.row(id, name));
    InputShape shape = lsn == null ? InputShape.FLATTENED : InputShape.FLATTENED_ADD_FIELDS;
    return (lsn == null ? change : change.atLsn(lsn))
        .toSinkRecord(shape, tp.partition(), offset, TIMESTAMP + offset);
  }

  /** ExtractNewRecordState's delete at its defaults: key, null value, no position. */
  static SinkRecord tombstone(TopicPartition tp, long offset, int id) {
    return ACCOUNTS
        .deleteKey(id)
        .toSinkRecord(InputShape.FLATTENED, tp.partition(), offset, TIMESTAMP + offset);
  }

  /** A Debezium envelope of table {@code table}; {@code op = t} is a truncate. */
  static SinkRecord envelope(
      TopicPartition tp, long offset, String table, String op, Integer id, String name, long lsn) {
    DebeziumTable source = accounts(table);
    Change change =
        switch (op) {
          case "c" -> source.create(source.row(id, name));
          case "d" -> source.deleteKey(id);
          case "t" -> source.truncate();
          default -> throw new IllegalArgumentException(op);
        };
    return change
        .atLsn(lsn)
        .toSinkRecord(InputShape.ENVELOPE, tp.partition(), offset, TIMESTAMP + offset);
  }

  ChangelakeSinkTask start(Map<String, String> props, TopicPartition... partitions) {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new ChangelakeSinkTaskTest.Context());
    task.start(props);
    task.open(List.of(partitions));
    running.add(task);
    return task;
  }

  /** Closes (committing everything, as a rebalance or a graceful restart does) and stops. */
  static void restart(ChangelakeSinkTask task, TopicPartition... partitions) {
    task.close(List.of(partitions));
    task.stop();
  }

  List<List<Object>> rows() throws Exception {
    try (Catalog catalog = TestTables.localCatalog(tmp.resolve("warehouse"))) {
      List<List<Object>> rows = new ArrayList<>();
      for (List<Object> row :
          LakeRows.read(catalog.getTable(Identifier.create("lake", "accounts")))) {
        rows.add(row.subList(0, 2));
      }
      return rows;
    }
  }

  @Test
  void aTombstoneThatIsTheFirstNewRecordAfterARestartDeletesItsRow() throws Exception {
    ChangelakeSinkTask first = start(props("flattened"), P0);
    first.put(List.of(flat(P0, 0, 1, "one", 1000L), flat(P0, 1, 2, "two", 1001L)));
    restart(first, P0);

    // Connect replays from its last committed offset: the records before are skipped as written
    ChangelakeSinkTask second = start(props("flattened"), P0);
    second.put(List.of(flat(P0, 1, 2, "two", 1001L), tombstone(P0, 2, 1)));
    restart(second, P0);
    assertThat(rows()).containsExactly(values(2, "two"));

    // nothing replayed at all: the tombstone is the very first record
    ChangelakeSinkTask third = start(props("flattened"), P0);
    third.put(List.of(tombstone(P0, 3, 2), flat(P0, 4, 1, "one again", 1004L)));
    restart(third, P0);
    assertThat(rows()).containsExactly(values(1, "one again"));
  }

  @Test
  void tombstonesWithoutAnyPositionInTheStreamDeleteAfterARestart() throws Exception {
    // ExtractNewRecordState without add.fields: rows are ordered by their Kafka timestamps
    ChangelakeSinkTask first = start(props("flattened"), P0);
    first.put(List.of(flat(P0, 0, 1, "one", null), flat(P0, 1, 2, "two", null)));
    restart(first, P0);

    ChangelakeSinkTask second = start(props("flattened"), P0);
    second.put(List.of(tombstone(P0, 2, 2)));
    restart(second, P0);

    assertThat(rows()).containsExactly(values(1, "one"));
  }

  @Test
  void aTombstoneOfATableCommittedWithoutMarksIsOrderedAfterTheStoredVersionOfItsKey()
      throws Exception {
    ChangelakeSinkTask first = start(props("flattened"), P0);
    first.put(List.of(flat(P0, 0, 1, "one", 1000L), flat(P0, 1, 2, "two", 1001L)));
    restart(first, P0);
    // a commit as the sink made them before positions were recorded: offsets, no marks
    try (Catalog catalog = TestTables.localCatalog(tmp.resolve("warehouse"));
        WriterPool pool =
            TestTables.smallPool(catalog, tmp, "changelake-sink-accounts-sink-task-1")) {
      TableWriter writer = pool.writer(Identifier.create("lake", "accounts"));
      writer.write(LakeRows.insert(3, "three", 1002L, 2L));
      writer.commit(Map.of(new SourcePartition(P0.topic(), P0.partition()), 3L));
    }

    ChangelakeSinkTask second = start(props("flattened"), P0);
    second.put(List.of(tombstone(P0, 3, 1), tombstone(P0, 4, 3)));
    restart(second, P0);

    assertThat(rows()).containsExactly(values(2, "two"));
  }

  @Test
  void autoFormatAppliesATombstoneOfAFlattenedStreamAfterARestart() throws Exception {
    ChangelakeSinkTask first = start(props("auto"), P0);
    first.put(List.of(flat(P0, 0, 1, "one", 1000L), flat(P0, 1, 2, "two", 1001L)));
    restart(first, P0);

    ChangelakeSinkTask second = start(props("auto"), P0);
    second.put(List.of(tombstone(P0, 2, 1)));
    restart(second, P0);

    assertThat(rows()).containsExactly(values(2, "two"));
  }

  @Test
  void autoFormatIgnoresTheTombstoneThatFollowsAnEnvelopeDelete() throws Exception {
    ChangelakeSinkTask task = start(props("auto"), P0);
    task.put(
        List.of(
            envelope(P0, 0, "accounts", "c", 1, "one", 1000L),
            envelope(P0, 1, "accounts", "d", 1, null, 1001L),
            tombstone(P0, 2, 1),
            envelope(P0, 3, "accounts", "c", 1, "back", 1003L)));
    restart(task, P0);

    assertThat(rows()).containsExactly(values(1, "back"));
  }

  @Test
  void aRecreatedTopicWhoseOffsetsStartAgainFailsTheTaskInsteadOfSkippingRecords()
      throws Exception {
    ChangelakeSinkTask first = start(props("flattened"), P0);
    first.put(
        List.of(
            flat(P0, 0, 1, "one", 1000L),
            flat(P0, 1, 2, "two", 1001L),
            flat(P0, 2, 3, "three", 1002L)));
    restart(first, P0);

    // the topic is deleted and created again: its offsets start at 0, its records are new
    ChangelakeSinkTask second = start(props("flattened"), P0);
    assertThatThrownBy(() -> putWritten(second, List.of(flat(P0, 0, 1, "one, changed", 5000L))))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("accounts-0@0")
        .hasMessageContaining("lake.accounts")
        .hasMessageContaining("postgres_lsn 5000")
        .hasMessageContaining("postgres_lsn 1002")
        .hasMessageContaining("re-created");
    second.stop();
    assertThat(rows()).containsExactly(values(1, "one"), values(2, "two"), values(3, "three"));
  }

  @Test
  void positionsOfAnotherKindThatGoBackwardsFailTheTask() throws Exception {
    // without add.fields the rows are ordered by their Kafka timestamps (~1.7e12)
    ChangelakeSinkTask first = start(props("flattened"), P0);
    first.put(List.of(flat(P0, 0, 1, "one", null)));
    restart(first, P0);

    // add.fields now includes lsn: much smaller numbers, later changes would lose
    ChangelakeSinkTask second = start(props("flattened"), P0);
    assertThatThrownBy(() -> putWritten(second, List.of(flat(P0, 1, 1, "one, updated", 1001L))))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("accounts-0@1")
        .hasMessageContaining("postgres_lsn 1001")
        .hasMessageContaining("record_timestamp 1700000000000")
        .hasMessageContaining("kind of position changed");
    second.stop();
  }

  @Test
  void rowsAfterATruncateSurviveItWhateverPartitionOrTaskTheyWereConsumedFrom() throws Exception {
    Map<String, String> envelopes = props("envelope");
    envelopes.put("route.table.format", "${source.table}");
    Map<String, String> otherTask = new HashMap<>(envelopes);
    otherTask.put(ChangelakeSinkTask.TASK_ID, "1");
    otherTask.put(ChangelakeSinkTask.TASK_COUNT, "2");
    ChangelakeSinkTask other = start(otherTask, P1);
    ChangelakeSinkTask task = start(envelopes, P0);
    task.put(
        List.of(
            envelope(P0, 0, "accounts", "c", 1, "before the truncate", 1000L),
            envelope(P0, 1, "accounts", "c", 2, "before the truncate", 1001L)));
    task.commitTables(task.processedPositions(), id -> true);
    // another task writes keys of its partition: one before the truncate, one after it
    other.put(
        List.of(
            envelope(P1, 0, "accounts", "c", 10, "other task, before", 1400L),
            envelope(P1, 1, "accounts", "c", 11, "other task, after", 1600L)));
    other.commitTables(other.processedPositions(), id -> true);
    task.put(
        List.of(
            // consumed before the truncate from another partition, but written after it
            envelope(P1, 2, "accounts", "c", 20, "after, consumed first", 2000L),
            envelope(P0, 2, "accounts", "t", null, null, 1500L),
            // consumed after the truncate from a lagging partition, but written before it
            envelope(P1, 3, "accounts", "c", 21, "before, consumed late", 1450L),
            envelope(P0, 3, "accounts", "c", 1, "after the truncate", 1700L)));
    restart(task, P0, P1);
    other.stop();

    assertThat(rows())
        .containsExactlyInAnyOrder(
            values(1, "after the truncate"),
            values(11, "other task, after"),
            values(20, "after, consumed first"));
  }

  @Test
  void rowsOfATruncatesVeryMillisecondSurviveItInAStreamOrderedByKafkaTimestamps()
      throws Exception {
    // ExtractNewRecordState at its defaults: rows carry only their Kafka timestamp, and Debezium
    // sends a truncate and the insert committed right after it within one millisecond (e2e
    // ChangeOrderTest.aTruncateEmptiesTheTableInFlattenedMode lost that insert whenever its
    // partition was consumed before the truncate's)
    Map<String, String> props = props("flattened");
    // by the topic's name, not one fixed table: a fixed table may hold other sources' rows
    props.remove("route.table.format");
    props.putAll(InputShapes.route(InputShape.FLATTENED, P0.topic()));
    ChangelakeSinkTask task = start(props, P0, P1);
    long truncatedAt = TIMESTAMP + 5;
    task.put(
        List.of(
            flatAt(P0, 0, 1, "before the truncate", TIMESTAMP),
            flatAt(P1, 0, 2, "before the truncate", TIMESTAMP)));
    task.commitTables(task.processedPositions(), id -> true);
    task.put(
        List.of(
            flatAt(P1, 1, 3, "earlier millisecond, consumed first", truncatedAt - 1),
            flatAt(P1, 2, 4, "same millisecond, consumed first", truncatedAt),
            ACCOUNTS
                .truncate()
                .atLsn(5000L)
                .toSinkRecord(InputShape.ENVELOPE, P0.partition(), 1, truncatedAt),
            flatAt(P0, 2, 5, "same millisecond, consumed after", truncatedAt),
            flatAt(P1, 3, 6, "same millisecond, consumed after", truncatedAt)));
    restart(task, P0, P1);

    assertThat(rows())
        .containsExactlyInAnyOrder(
            values(4, "same millisecond, consumed first"),
            values(5, "same millisecond, consumed after"),
            values(6, "same millisecond, consumed after"));
  }

  /** A flattened row without any position (the transform's defaults) at Kafka time {@code ts}. */
  private static SinkRecord flatAt(TopicPartition tp, long offset, int id, String name, long ts) {
    return ACCOUNTS
        .update(null, ACCOUNTS.row(id, name))
        .toSinkRecord(InputShape.FLATTENED, tp.partition(), offset, ts);
  }

  @Test
  void aTruncateOfOneOfSeveralSourceTablesSharingATableLeavesItsRows() throws Exception {
    // a rule that keeps the topic name routes both source tables of the topic into one table:
    // what the task wrote tells them apart
    Map<String, String> props = props("envelope");
    props.put("route.table.format", "${source.table}");
    props.put("route.regex.rules", "(accounts)=>$1");
    ChangelakeSinkTask task = start(props, P0, P1);
    task.put(
        List.of(
            envelope(P0, 0, "accounts_eu", "c", 1, "eu", 1000L),
            envelope(P1, 0, "accounts_us", "c", 2, "us", 1001L),
            envelope(P0, 1, "accounts_eu", "t", null, null, 1002L)));
    restart(task, P0, P1);

    assertThat(rows()).containsExactlyInAnyOrder(values(1, "eu"), values(2, "us"));
  }

  @Test
  void aTruncateIsNotAppliedToATableWhoseRoutingNamesOneFixedTable() throws Exception {
    ChangelakeSinkTask task = start(props("envelope"), P0);
    task.put(
        List.of(
            envelope(P0, 0, "accounts_eu", "c", 1, "eu", 1000L),
            envelope(P0, 1, "accounts_eu", "t", null, null, 1002L)));
    restart(task, P0);

    assertThat(rows()).containsExactly(values(1, "eu"));
  }

  @Test
  void aTruncateIsStillAppliedWhenTheTableHasOneSourceTable() throws Exception {
    Map<String, String> props = props("envelope");
    props.put("route.table.format", "${source.table}");
    ChangelakeSinkTask task = start(props, P0);
    task.put(
        List.of(
            envelope(P0, 0, "accounts", "c", 1, "one", 1000L),
            envelope(P0, 1, "accounts", "t", null, null, 1001L),
            envelope(P0, 2, "accounts", "c", 2, "two", 1002L)));
    restart(task, P0);

    assertThat(rows()).containsExactly(values(2, "two"));
  }
}
