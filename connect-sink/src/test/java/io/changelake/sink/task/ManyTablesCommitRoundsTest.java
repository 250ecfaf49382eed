package io.changelake.sink.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.changelake.lsm.write.SealGenerations;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A hundred tables in one task, each its own topic getting about one row per commit round, with the
 * two-generation seal on: the shape of the benchmark's latency probe at 100 tables (issue 14; the
 * rows it missed turned out to be committed, its watcher fell behind). Rows arrive in small batches
 * while the previous round lands, some tables get none in a round; once the inserts stop, rounds
 * without records must bring every row into the committed tables, and only then are all positions
 * reported.
 */
class ManyTablesCommitRoundsTest {
  private static final int TABLES = 100;
  private static final int ROUNDS = 6;
  private static final int BATCH = 10;

  @TempDir Path tmp;

  private final List<DebeziumTable> sources = new ArrayList<>();
  private final List<TopicPartition> partitions = new ArrayList<>();

  /**
   * ChangelakeSinkTaskTest's task properties, with the benchmark's tables: deduplicate, 4 buckets.
   */
  private Map<String, String> props(InputShape shape) {
    ChangelakeSinkTaskTest base = new ChangelakeSinkTaskTest();
    base.tmp = tmp;
    Map<String, String> props = base.props(shape);
    props.put("table.merge-engine", "deduplicate");
    props.remove("table.option.fields.amount.aggregate-function");
    props.remove("table.buckets");
    return props;
  }

  // shapes whose records name their table and carry the sequence field the seal needs
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS"})
  void everyRowOfAHundredTablesReachesTheCommittedTablesRoundAfterRound(InputShape shape)
      throws Exception {
    for (int t = 0; t < TABLES; t++) {
      String name = String.format(Locale.ROOT, "lat_%03d", t);
      DebeziumTable table =
          DebeziumTable.builder(name)
              .topic("lat.public." + name)
              .key("id", Schema.INT64_SCHEMA)
              .column("v", Schema.INT32_SCHEMA)
              .column("note", Schema.OPTIONAL_STRING_SCHEMA)
              .build();
      sources.add(table);
      partitions.add(new TopicPartition(table.topic(), 0));
    }
    // per table: row id -> the round it was put in
    List<Map<Long, Integer>> written = new ArrayList<>();
    sources.forEach(t -> written.add(new TreeMap<>()));
    long[] nextOffset = new long[TABLES];
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    try (SealGenerations generations = SealGenerations.on()) {
      task.initialize(new ChangelakeSinkTaskTest.Context());
      task.start(props(shape));
      task.open(partitions);
      long id = 0;
      for (int round = 0; round < ROUNDS; round++) {
        // the tables in turn, as the probe inserts; some get no row in a round, a few get two
        List<SinkRecord> records = new ArrayList<>();
        for (int t = 0; t < TABLES; t++) {
          int rows = (t + round) % 7 == 0 ? 0 : (t + round) % 11 == 0 ? 2 : 1;
          DebeziumTable table = sources.get(t);
          for (int r = 0; r < rows; r++) {
            id++;
            records.add(
                table
                    .create(table.row(id, 1, "row " + id))
                    .atLsn(40_000_000L + id * 100)
                    .atSourceTsMs(1_764_500_000_000L + id)
                    .toSinkRecord(shape, 0, nextOffset[t]++));
            written.get(t).put(id, round);
          }
        }
        // in small batches: the first put after the round is due waits for the round in flight,
        // seals and goes on, the rest are written while the round lands
        for (int from = 0; from < records.size(); from += BATCH) {
          task.put(records.subList(from, Math.min(records.size(), from + BATCH)));
        }
        task.dueForCommit();
      }
      // no more records: Connect comes back after the task's timeout with none, and at its flush
      Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
      for (int t = 0; t < TABLES; t++) {
        current.put(partitions.get(t), new OffsetAndMetadata(nextOffset[t]));
      }
      await()
          .atMost(Duration.ofSeconds(300))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                task.put(List.of());
                task.dueForCommit();
                return task.preCommit(current).equals(current);
              });

      Map<String, List<String>> missing = missingRows(written);
      assertThat(missing)
          .as("rows whose positions were reported committed but that are not in their table")
          .isEmpty();
    } finally {
      task.stop();
    }
  }

  /** Per table, the rows put but not in it, each with its round and place among the table's. */
  private Map<String, List<String>> missingRows(List<Map<Long, Integer>> written) throws Exception {
    ChangelakeSinkTaskTest reader = new ChangelakeSinkTaskTest();
    reader.tmp = tmp;
    Map<String, List<String>> missing = new TreeMap<>();
    for (int t = 0; t < TABLES; t++) {
      String name = sources.get(t).table();
      List<Object> found = reader.rows(name).stream().map(row -> row.get(0)).toList();
      List<Long> ids = new ArrayList<>(written.get(t).keySet());
      List<String> lost = new ArrayList<>();
      for (int i = 0; i < ids.size(); i++) {
        if (!found.contains(ids.get(i))) {
          lost.add(
              ids.get(i)
                  + " (round "
                  + written.get(t).get(ids.get(i))
                  + ", row "
                  + (i + 1)
                  + " of "
                  + ids.size()
                  + ")");
        }
      }
      if (!lost.isEmpty()) {
        missing.put(name, lost);
      }
    }
    return missing;
  }
}
