package io.changelake.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.changelog.StartPosition;
import io.changelake.lsm.changelog.TruncateBarrier;
import io.changelake.source.assign.BucketSet;
import io.changelake.source.assign.TableAssignment;
import io.changelake.source.metrics.SourceMetrics;
import io.changelake.source.record.ChangeRecords;
import io.changelake.source.record.RecordFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read-ahead on a real Paimon table on disk: batches it read but the task did not hand over are
 * not published, so a reader opened after a failure reads exactly them again.
 */
class ReadAheadTest {
  private static final Identifier TABLE = Identifier.create("db", "items");
  private static final int ROWS = 10;
  private static final int BATCH = 3;

  @TempDir Path warehouse;
  private Catalog catalog;
  private FileStoreTable table;

  @BeforeEach
  void createTableWithTenRows() throws Exception {
    catalog = LakeCatalogs.open(Map.of("paimon.warehouse", warehouse.toString()));
    Map<Integer, String> rows = new TreeMap<>();
    for (int id = 1; id <= ROWS; id++) {
      rows.put(id, "row " + id);
    }
    table = IdNameTable.create(catalog, TABLE, rows);
  }

  @AfterEach
  void closeCatalog() throws Exception {
    catalog.close();
  }

  @Test
  void batchesReadAheadButNotHandedOverAreReadAgainAfterAFailureAndNothingElseIs()
      throws Exception {
    TablePublisher publisher = publisher();
    ReadAhead reading = new ReadAhead(List.of(publisher), null, 2, Duration.ofMillis(10), "t-1");
    reading.start();
    ReadAhead.Batch first = (ReadAhead.Batch) nextBatchOrFailure(reading);
    List<SourceRecord> handedOver = new ArrayList<>(publisher.handOver(first.ready()));
    // let it read ahead until it waits for room: two more batches are read and not handed over
    awaitQueued(reading, 2);
    reading.stop(); // as after a failure: what was read ahead is dropped
    publisher.discardReader();

    ReadAhead again = new ReadAhead(List.of(publisher), publisher, 2, Duration.ofMillis(10), "t-2");
    again.start();
    List<SourceRecord> afterRestart = new ArrayList<>();
    while (true) {
      ReadAhead.Batch batch = (ReadAhead.Batch) nextBatchOrFailure(again);
      afterRestart.addAll(publisher.handOver(batch.ready()));
      if (batch.ready().endOfSnapshot()) {
        break;
      }
    }
    again.stop();
    publisher.close();

    assertThat(ids(handedOver)).containsExactly(1, 2, 3);
    // resumed just after the last record handed over: every row once, none skipped
    assertThat(ids(afterRestart)).containsExactly(4, 5, 6, 7, 8, 9, 10);
    Map<String, ?> resumedAt = afterRestart.get(0).sourceOffset();
    assertThat(resumedAt.get("row_offset")).isEqualTo(4L);
    assertThat(resumedAt.get("full_state")).isEqualTo(true);
  }

  @Test
  void theReadAheadHoldsAtMostItsCapacityAndGoesOnAsTheTaskTakesBatches() throws Exception {
    TablePublisher publisher = publisher();
    ReadAhead reading = new ReadAhead(List.of(publisher), null, 1, Duration.ofMillis(10), "t-3");
    reading.start();
    List<Integer> ids = new ArrayList<>();
    while (true) {
      awaitQueued(reading, 1);
      assertThat(reading.queued()).isEqualTo(1);
      ReadAhead.Batch batch = (ReadAhead.Batch) nextBatchOrFailure(reading);
      ids.addAll(ids(publisher.handOver(batch.ready())));
      if (batch.ready().endOfSnapshot()) {
        break;
      }
    }
    reading.stop();
    publisher.close();

    assertThat(ids).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
  }

  private TablePublisher publisher() {
    SourceMetrics metrics = new SourceMetrics(null);
    return new TablePublisher(
        new TableAssignment(TABLE, BucketSet.all()),
        table,
        new ChangeRecords(
            TABLE,
            "cl.db.items",
            table.primaryKeys(),
            new ChangeRecords.Settings("read-ahead-test", RecordFormat.ENVELOPE, "__op", false)),
        new TablePublisher.Reading("read-ahead-test", new StartPosition.FullThenChanges(), BATCH),
        Map.of(),
        metrics.table("db.items"),
        TruncateBarrier.NONE);
  }

  /** The next item that is not a report of an idle round; a failure fails the test with it. */
  private static ReadAhead.Item nextBatchOrFailure(ReadAhead reading) throws Exception {
    while (true) {
      ReadAhead.Item item = reading.next(60_000);
      if (item instanceof ReadAhead.Failed failed) {
        throw failed.error();
      }
      if (item instanceof ReadAhead.Batch) {
        return item;
      }
    }
  }

  private static void awaitQueued(ReadAhead reading, int count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (reading.queued() < count && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }

  private static List<Integer> ids(List<SourceRecord> records) {
    return records.stream().map(r -> ((Struct) r.key()).getInt32("id")).toList();
  }
}
