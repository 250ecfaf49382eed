package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.records;
import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import io.changelake.schema.evolution.EvolutionPolicy;
import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.sink.metrics.SinkMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-record pipeline driven without Connect: records in, rows in the routed tables. */
class RecordPipelineTest {
  @TempDir Path tmp;

  @Test
  void recordsAreRoutedToTheirTablesAndCountedProcessed() throws Exception {
    ChangelakeSinkTaskTest fixture = new ChangelakeSinkTaskTest();
    fixture.tmp = tmp;
    Map<String, String> props = fixture.props();
    ChangelakeSinkConfig config = new ChangelakeSinkConfig(props);
    OffsetTracker offsets = new OffsetTracker(Duration.ofHours(1), Long.MAX_VALUE);
    CommitUsers users = new CommitUsers("payments-sink");
    try (Catalog catalog = LakeCatalogs.open(config.catalogProperties());
        WriterPool pool =
            new WriterPool(
                catalog,
                new WriterSettings(
                    users.task(0), tmp.resolve("spill"), 8 << 20, Duration.ofHours(1)));
        SinkMetrics metrics =
            SinkMetrics.of(new ChangelakeSinkTaskTest.Context(), "payments-sink", 0)) {
      LakeTables.createDatabaseIfAbsent(catalog, config.database());
      RecordPipeline pipeline =
          new RecordPipeline(
              config, EvolutionPolicy.from(props), new ErrorHandler(null), offsets, metrics, users);
      pipeline.lake(new RecordPipeline.Lake(catalog, pool, new TableProvisioner(catalog)));

      records(0, 6).forEach(pipeline::process);

      Map<SourcePartition, Long> positions =
          OffsetTracker.asSourcePartitions(offsets.processedSnapshot());
      assertThat(positions).isEqualTo(Map.of(new SourcePartition("payments", 0), 6L));
      assertThat(pipeline.tables().keySet())
          .extracting(id -> id.getObjectName())
          .containsExactly("t1", "t2");
      for (TableState table : pipeline.tables().values()) {
        assertThat(table.dirty).isTrue();
        table.writer().commit(pipeline.progress(table, positions));
      }
    }
    assertThat(fixture.rows("t1")).containsExactly(values(1, 3L));
    assertThat(fixture.rows("t2")).containsExactly(values(1, 3L));
  }
}
