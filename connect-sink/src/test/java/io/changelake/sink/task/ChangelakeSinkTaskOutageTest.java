package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.S3ProxyServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The task against a real S3 endpoint (s3proxy) that goes away and comes back, driven the way
 * Connect drives it after a {@code RetriableException}: the same batch again, then the records from
 * the positions the task asked to rewind to. Sum-aggregating tables make a record applied twice
 * visible, a lost one too.
 */
class ChangelakeSinkTaskOutageTest {
  private static final TopicPartition PARTITION = ChangelakeSinkTaskTest.PARTITION;

  @TempDir Path tmp;

  private Map<String, String> props(S3ProxyServer s3) {
    Map<String, String> props = new HashMap<>(s3.connectorProperties("s3://lake/warehouse"));
    props.put("name", "payments-sink");
    props.put("writer.spill.dir", tmp.resolve("spill").toString());
    props.put("route.database", "lake");
    props.put("route.table.format", "${source.table}");
    props.put("table.merge-engine", "aggregation");
    props.put("table.option.fields.amount.aggregate-function", "sum");
    props.put("table.buckets", "1");
    props.put("commit.interval.ms", "1000");
    props.put("compaction.interval.ms", "0");
    props.put("retry.backoff.ms", "10");
    // S3A gives up at once: the outage reaches the task
    props.put("paimon.s3.attempts.maximum", "1");
    props.put("paimon.s3.retry.limit", "1");
    props.put("paimon.s3.retry.interval", "10ms");
    props.put("paimon.s3.connection.establish.timeout", "1000");
    return props;
  }

  @Test
  void anS3OutageDuringPutIsRetriedFromTheCommittedPositionsWithoutDoublingOrLosing()
      throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(tmp.resolve("s3"))) {
      s3.createBucket("lake");
      RecordingContext context = new RecordingContext();
      ChangelakeSinkTask task = new ChangelakeSinkTask();
      task.initialize(context);
      task.start(props(s3));
      try {
        task.open(List.of(PARTITION));
        task.put(ChangelakeSinkTaskTest.records(0, 10));
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> !task.preCommit(Map.of(PARTITION, new OffsetAndMetadata(10))).isEmpty());

        // rows buffered, then the commit on Connect's offset flush fails: the task drops them and
        // asks Connect to read again from the committed position
        task.put(ChangelakeSinkTaskTest.records(10, 16));
        s3.stop();
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  assertThat(task.preCommit(Map.of(PARTITION, new OffsetAndMetadata(16))))
                      .as("committed positions only")
                      .containsEntry(PARTITION, new OffsetAndMetadata(10));
                  return !context.rewound.isEmpty();
                });
        assertThat(context.rewound).as("read again from").containsEntry(PARTITION, 10L);

        // Connect reads from there; the object store is still away: put throws for Connect to
        // wait and deliver the batch again, which the task skips (its records come again next)
        context.rewound.clear();
        List<SinkRecord> again = ChangelakeSinkTaskTest.records(10, 16);
        assertThatThrownBy(() -> task.put(again))
            .isInstanceOf(RetriableException.class)
            .hasMessageContaining("the object store (warehouse files) is unavailable");
        assertThat(context.rewound).containsEntry(PARTITION, 10L);
        assertThat(context.timeoutMs).as("backoff").isPositive();
        task.put(again);

        s3.restart();
        task.put(ChangelakeSinkTaskTest.records(10, 20));
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    new OffsetAndMetadata(20)
                        .equals(
                            task.preCommit(Map.of(PARTITION, new OffsetAndMetadata(20)))
                                .get(PARTITION)));
      } finally {
        task.stop();
      }
      // offsets 0..19: ten records of each table, each adding 1
      assertThat(rows(s3, "t1")).containsExactly(values(1, 10L));
      assertThat(rows(s3, "t2")).containsExactly(values(1, 10L));
    }
  }

  @Test
  void aWrongSecretFailsAtOnceNamingTheCredentials() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(tmp.resolve("s3"))) {
      s3.createBucket("lake");
      Map<String, String> props = props(s3);
      props.put("paimon.s3.secret-key", "wrong");
      ChangelakeSinkTask task = new ChangelakeSinkTask();
      task.initialize(new RecordingContext());
      try {
        assertThatThrownBy(() -> task.start(props))
            .isInstanceOf(ConnectException.class)
            .isNotInstanceOf(RetriableException.class)
            .hasMessageContaining("not retried")
            .hasMessageContaining("403")
            .hasMessageContaining("check paimon.s3.access-key and paimon.s3.secret-key");
      } finally {
        task.stop();
      }
    }
  }

  private static List<List<Object>> rows(S3ProxyServer s3, String table) throws Exception {
    try (Catalog catalog = LakeCatalogs.open(s3.connectorProperties("s3://lake/warehouse"))) {
      List<List<Object>> rows = new ArrayList<>();
      for (List<Object> row : LakeRows.read(catalog.getTable(Identifier.create("lake", table)))) {
        rows.add(row.subList(0, 2));
      }
      return rows;
    }
  }

  /** Keeps what the task asks of Connect: where to rewind to, how long to wait. */
  private static final class RecordingContext implements SinkTaskContext {
    final Map<TopicPartition, Long> rewound = new HashMap<>();
    long timeoutMs = -1;

    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {
      rewound.putAll(offsets);
    }

    @Override
    public void offset(TopicPartition tp, long offset) {
      rewound.put(tp, offset);
    }

    @Override
    public void timeout(long timeoutMs) {
      this.timeoutMs = timeoutMs;
    }

    @Override
    public Set<TopicPartition> assignment() {
      return Set.of(PARTITION);
    }

    @Override
    public void pause(TopicPartition... partitions) {}

    @Override
    public void resume(TopicPartition... partitions) {}

    @Override
    public void requestCommit() {}

    @Override
    public ErrantRecordReporter errantRecordReporter() {
      return null;
    }

    @Override
    public PluginMetrics pluginMetrics() {
      return null;
    }
  }
}
