package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.putWritten;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A source whose log restarts lower (MySQL failover or {@code RESET MASTER}, PostgreSQL on a new
 * cluster) stops the task instead of its changes losing against the stored rows; Debezium resending
 * changes after a crash and PostgreSQL's concurrent transactions, whose positions go back too, do
 * not. Every scenario on Debezium envelopes and on rows flattened with {@code add.fields}, on real
 * Paimon tables, across task restarts (the high mark rides in the commits).
 */
class LogRestartTest {
  static final TopicPartition P0 = new TopicPartition("accounts", 0);
  static final Schema KEY = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();
  static final Schema ROW =
      SchemaBuilder.struct()
          .optional()
          .field("id", Schema.INT32_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .build();
  static final Schema SOURCE =
      SchemaBuilder.struct()
          .field("name", Schema.STRING_SCHEMA)
          .field("db", Schema.STRING_SCHEMA)
          .field("table", Schema.STRING_SCHEMA)
          .field("ts_ms", Schema.INT64_SCHEMA)
          .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
          .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
          .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
          .field("file", Schema.OPTIONAL_STRING_SCHEMA)
          .field("pos", Schema.OPTIONAL_INT64_SCHEMA)
          .build();
  static final Schema ENVELOPE =
      SchemaBuilder.struct()
          .name("shop.public.accounts.Envelope")
          .field("before", ROW)
          .field("after", ROW)
          .field("source", SOURCE)
          .field("op", Schema.STRING_SCHEMA)
          .build();
  // ExtractNewRecordState with add.fields=op,lsn,sequence,file,pos,source.ts_ms
  static final Schema FLAT =
      SchemaBuilder.struct()
          .name("shop.public.accounts.Value")
          .field("id", Schema.INT32_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__op", Schema.STRING_SCHEMA)
          .field("__lsn", Schema.OPTIONAL_INT64_SCHEMA)
          .field("__sequence", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__file", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__pos", Schema.OPTIONAL_INT64_SCHEMA)
          .field("__source_ts_ms", Schema.INT64_SCHEMA)
          .build();

  enum Format {
    ENVELOPE("envelope"),
    FLATTENED("flattened");

    final String inputFormat;

    Format(String inputFormat) {
      this.inputFormat = inputFormat;
    }
  }

  /** Where a change sits in the source's log: PostgreSQL's two LSNs or MySQL's binlog. */
  record Log(Long lastCommitLsn, Long lsn, String file, Long pos) {
    static Log pg(long lastCommitLsn, long lsn) {
      return new Log(lastCommitLsn, lsn, null, null);
    }

    static Log binlog(String file, long pos) {
      return new Log(null, null, file, pos);
    }

    String sequence() {
      return lastCommitLsn == null ? null : "[\"" + lastCommitLsn + "\",\"" + lsn + "\"]";
    }
  }

  @TempDir Path tmp;
  private final List<ChangelakeSinkTask> running = new ArrayList<>();

  Map<String, String> props(Format format) {
    Map<String, String> props = new HashMap<>();
    props.put("name", "accounts-sink");
    props.put("paimon.warehouse", tmp.resolve("warehouse").toUri().toString());
    // every batch on the pipeline thread, as under load (the default leaves small ones in put)
    props.put("pipeline.thread.min.records", "1");
    props.put("writer.spill.dir", tmp.resolve("spill").toString());
    props.put("route.database", "lake");
    props.put("route.table.format", "accounts");
    props.put("input.format", format.inputFormat);
    props.put("table.buckets", "1");
    props.put("commit.interval.ms", "3600000");
    props.put("compaction.interval.ms", "0");
    return props;
  }

  static SinkRecord change(
      Format format, long offset, String op, int id, String name, Log log, long sourceTsMs) {
    Struct value;
    Schema schema;
    if (format == Format.ENVELOPE) {
      schema = ENVELOPE;
      Struct source =
          new Struct(SOURCE)
              .put("name", "shop")
              .put("db", "shop")
              .put("table", "accounts")
              .put("ts_ms", sourceTsMs)
              .put("snapshot", op.equals("r") ? "true" : "false")
              .put("sequence", log.sequence())
              .put("lsn", log.lsn())
              .put("file", log.file())
              .put("pos", log.pos());
      value =
          new Struct(ENVELOPE)
              .put("after", new Struct(ROW).put("id", id).put("name", name))
              .put("source", source)
              .put("op", op);
    } else {
      schema = FLAT;
      value =
          new Struct(FLAT)
              .put("id", id)
              .put("name", name)
              .put("__op", op)
              .put("__lsn", log.lsn())
              .put("__sequence", log.sequence())
              .put("__file", log.file())
              .put("__pos", log.pos())
              .put("__source_ts_ms", sourceTsMs);
    }
    return new SinkRecord(
        P0.topic(),
        P0.partition(),
        KEY,
        new Struct(KEY).put("id", id),
        schema,
        value,
        offset,
        1_700_000_000_000L + offset,
        TimestampType.CREATE_TIME);
  }

  ChangelakeSinkTask start(Format format) {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new ChangelakeSinkTaskTest.Context());
    task.start(props(format));
    task.open(List.of(P0));
    running.add(task);
    return task;
  }

  static void restart(ChangelakeSinkTask task) {
    task.close(List.of(P0));
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

  @ParameterizedTest
  @EnumSource(Format.class)
  void aPostgresLogThatRestartedLowerStopsTheTaskNamingBothPositions(Format format)
      throws Exception {
    ChangelakeSinkTask first = start(format);
    first.put(
        List.of(
            change(format, 0, "c", 1, "one", Log.pg(90_000, 90_100), 1_000),
            change(format, 1, "c", 2, "two", Log.pg(90_200, 90_300), 1_001)));
    restart(first);

    // the database moved to a new cluster: LSNs start again far lower, committed later
    ChangelakeSinkTask second = start(format);
    assertThatThrownBy(
            () ->
                putWritten(
                    second,
                    List.of(change(format, 2, "u", 1, "one, new", Log.pg(400, 420), 9_000))))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("accounts-0@2")
        .hasMessageContaining("lake.accounts")
        .hasMessageContaining("postgres_lsn 400 (source.ts_ms 9000)")
        .hasMessageContaining("postgres_lsn 90200 (source.ts_ms 1001)")
        .hasMessageContaining("restarted lower")
        .hasMessageContaining("Positions going backwards");
    second.stop();
    assertThat(rows()).containsExactly(values(1, "one"), values(2, "two"));
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void aMysqlResetMasterStopsTheTaskWhileAResendDoesNot(Format format) throws Exception {
    ChangelakeSinkTask task = start(format);
    assertThatThrownBy(
            () ->
                putWritten(
                    task,
                    List.of(
                        change(
                            format, 0, "c", 1, "one", Log.binlog("mysql-bin.000042", 500), 1_000),
                        change(
                            format, 1, "c", 2, "two", Log.binlog("mysql-bin.000042", 900), 1_000),
                        // Debezium resends from an older offset: same position, same time
                        change(
                            format, 2, "c", 1, "one", Log.binlog("mysql-bin.000042", 500), 1_000),
                        // RESET MASTER: binlog.000001 again, a second later
                        change(
                            format,
                            3,
                            "u",
                            1,
                            "one, new",
                            Log.binlog("mysql-bin.000001", 4),
                            2_000))))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("accounts-0@3")
        .hasMessageContaining("binlog " + ((1L << 32) | 4))
        .hasMessageContaining("binlog " + ((42L << 32) | 900));
    task.stop();
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void debeziumResendingChangesAfterACrashIsApplied(Format format) throws Exception {
    ChangelakeSinkTask first = start(format);
    first.put(
        List.of(
            change(format, 0, "c", 1, "one", Log.pg(1_000, 1_010), 5_000),
            change(format, 1, "u", 1, "one v2", Log.pg(1_100, 1_110), 5_001),
            change(format, 2, "c", 2, "two", Log.pg(1_200, 1_210), 5_002)));
    restart(first);

    // Debezium crashed and sends again from an older offset: the same changes, positions and
    // source times; then new ones
    ChangelakeSinkTask second = start(format);
    second.put(
        List.of(
            change(format, 3, "u", 1, "one v2", Log.pg(1_100, 1_110), 5_001),
            change(format, 4, "c", 2, "two", Log.pg(1_200, 1_210), 5_002),
            change(format, 5, "u", 2, "two v2", Log.pg(1_300, 1_310), 5_003),
            change(format, 6, "c", 3, "three", Log.pg(1_400, 1_410), 5_004)));
    restart(second);
    assertThat(rows())
        .containsExactly(values(1, "one v2"), values(2, "two v2"), values(3, "three"));
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void concurrentPostgresTransactionsWhoseChangeLsnsGoBackAreApplied(Format format)
      throws Exception {
    ChangelakeSinkTask task = start(format);
    task.put(
        List.of(
            // T2 (changes at 2_100, commit 2_200) commits before T1 (changes at 2_000, commit
            // 2_300): T1's change LSN is lower, committed later; its last commit is T2's
            change(format, 0, "c", 1, "from T2", Log.pg(1_900, 2_100), 7_000),
            change(format, 1, "c", 2, "from T1", Log.pg(2_200, 2_000), 7_001),
            // a snapshot read (re-snapshot) is not a log position at all
            change(format, 2, "r", 3, "snapshot", Log.pg(100, 150), 9_999),
            change(format, 3, "u", 1, "T3", Log.pg(2_300, 2_400), 7_002)));
    restart(task);
    assertThat(rows())
        .containsExactly(values(1, "T3"), values(2, "from T1"), values(3, "snapshot"));
  }
}
