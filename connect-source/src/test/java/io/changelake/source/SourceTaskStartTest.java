package io.changelake.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.source.assign.BucketSet;
import io.changelake.source.assign.TableAssignment;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source task whose catalog or object store is away when it starts: Connect fails a task whose
 * {@code start} throws and never retries it, so start must not touch storage. The catalog opener
 * here fails the way paimon-s3 does while the endpoint refuses connections, then recovers; the
 * table behind it is a real Paimon table on local disk.
 */
class SourceTaskStartTest {
  private static final Identifier TABLE = Identifier.create("db", "items");

  @TempDir Path warehouse;

  @BeforeEach
  void createTableWithTwoRows() throws Exception {
    try (Catalog catalog = LakeCatalogs.open(Map.of("paimon.warehouse", warehouse.toString()))) {
      IdNameTable.create(catalog, TABLE, new TreeMap<>(Map.of(1, "one", 2, "two")));
    }
  }

  @Test
  void aCatalogAwayAtStartIsRetriedFromPollAndTheTableIsPublishedWhenItIsBack() throws Exception {
    AtomicInteger refusalsLeft = new AtomicInteger(2);
    ChangelakeSourceTask task =
        new ChangelakeSourceTask(
            failingFirst(
                refusalsLeft,
                () -> new UncheckedIOException(new ConnectException("Connection refused"))));
    task.initialize(new Context());
    task.start(props()); // before the fix: threw, and Connect failed the task for good

    List<RetriableException> retries = new ArrayList<>();
    List<SourceRecord> published = new ArrayList<>();
    // the table is read on the task's read-ahead thread: a poll may come back empty before the
    // first batch is read, so poll until the rows are there (or give up after a minute)
    long deadline = System.nanoTime() + java.time.Duration.ofMinutes(1).toNanos();
    while (published.size() < 2 && System.nanoTime() < deadline) {
      try {
        List<SourceRecord> records = task.poll();
        if (records != null) {
          published.addAll(records);
        }
      } catch (RetriableException e) {
        retries.add(e);
      }
    }
    task.stop();

    assertThat(retries).hasSize(2);
    assertThat(retries.get(0))
        .hasMessageContaining("Opening the catalog and tables failed because the object store");
    assertThat(published)
        .extracting(r -> ((org.apache.kafka.connect.data.Struct) r.key()).getInt32("id"))
        .containsExactlyInAnyOrder(1, 2);
    assertThat(published).extracting(SourceRecord::topic).containsOnly("cl.db.items");
  }

  @Test
  void aFailureThatRetryingCannotCureFailsTheFirstPollNamingIt() {
    ChangelakeSourceTask task =
        new ChangelakeSourceTask(
            failingFirst(
                new AtomicInteger(1),
                () ->
                    new UncheckedIOException(
                        new AccessDeniedException("s3a://lake/warehouse: 403 Forbidden"))));
    task.initialize(new Context());
    task.start(props());

    assertThatThrownBy(task::poll)
        .isInstanceOf(org.apache.kafka.connect.errors.ConnectException.class)
        .isNotInstanceOf(RetriableException.class)
        .hasMessageContaining("opening the catalog and tables failed and is not retried")
        .hasMessageContaining("check paimon.s3.access-key and paimon.s3.secret-key");
    task.stop();
  }

  /** Opens the real catalog after {@code failures} attempts that fail with {@code error}. */
  private static Function<Map<String, String>, Catalog> failingFirst(
      AtomicInteger failures, java.util.function.Supplier<RuntimeException> error) {
    return props -> {
      if (failures.getAndDecrement() > 0) {
        throw error.get();
      }
      return LakeCatalogs.open(props);
    };
  }

  private Map<String, String> props() {
    Map<String, String> props = new HashMap<>();
    props.put("name", "start-test");
    props.put("paimon.warehouse", warehouse.toString());
    props.put("tables", TABLE.getFullName());
    props.put("topic.name.format", "cl.${database}.${table}");
    props.put("start.position", "full");
    props.put("poll.interval.ms", "10");
    props.put("retry.backoff.ms", "10");
    props.put("retry.backoff.max.ms", "10");
    props.put(
        ChangelakeSourceTask.TASK_TABLES,
        TableAssignment.encode(List.of(new TableAssignment(TABLE, BucketSet.all()))));
    return props;
  }

  /** The little of SourceTaskContext the task uses: no stored offsets, no metrics. */
  private static final class Context implements SourceTaskContext {
    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public OffsetStorageReader offsetStorageReader() {
      return new OffsetStorageReader() {
        @Override
        public <T> Map<String, Object> offset(Map<String, T> partition) {
          return null;
        }

        @Override
        public <T> Map<Map<String, T>, Map<String, Object>> offsets(
            Collection<Map<String, T>> partitions) {
          return Map.of();
        }
      };
    }

    @Override
    public PluginMetrics pluginMetrics() {
      return null;
    }
  }
}
