package io.changelake.sink.task;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.catalog.Identifier;

/**
 * Where a partition handed to the task reads on from: past what its table already holds.
 *
 * <p>For partitions it revokes, Connect commits the offsets {@code preCommit} returned and only
 * then calls {@code close}, so the round {@code close} lands never reaches the consumer group: the
 * next owner reads the partition from the round before, up to a commit interval of records that
 * Connect converts and the task decodes, only to skip them as contained (a quarter of all records
 * when two tasks start one after the other, docs/benchmarks.md). So once the first records of a
 * partition assigned anew are processed, and every record of its topic goes to one table (routing
 * by the topic alone), the task seeks it to just before the offset that table holds and drops what
 * the batch in hand has below it: those records are in the table.
 *
 * <p>Just before, by one record: Connect counts an offset a task seeks to as committed (its rewind
 * puts it among the offsets last committed) and commits only offsets that differ from those. Sought
 * to the table's offset itself, a partition with no record after it kept its consumer group where
 * the previous owner left it, a lag that never drained until new records came (the benchmark's
 * 2-task run waited 10 minutes for the last ~5,800 offsets of each partition). Sought one before,
 * that record is delivered again (the table holds it: skipped as contained, like any record read
 * again), Connect's position passes the sought offset, and the table's offset is committed as after
 * any round.
 *
 * <p>Forward only, and only after records were processed: they were checked against the table (a
 * re-created topic fails there), and a table holding less than the partition's position moves
 * nothing. Routing by the source block is left reading as before: a topic may then feed several
 * tables, and after a crash between the tables of a round one of them may hold the partition
 * further than another this task has not met yet.
 */
final class SkipAhead {
  // assigned anew, with the one table their topic names; no record of them processed yet
  private final Map<TopicPartition, Identifier> waiting = new HashMap<>();

  /**
   * {@code partitions} were assigned to the task.
   *
   * @param tableOf the one table every record of a topic goes to, if the topic alone names it
   */
  void opened(
      Collection<TopicPartition> partitions, Function<String, Optional<Identifier>> tableOf) {
    for (TopicPartition tp : partitions) {
      tableOf.apply(tp.topic()).ifPresent(table -> waiting.put(tp, table));
    }
  }

  void closed(Collection<TopicPartition> partitions) {
    partitions.forEach(waiting::remove);
  }

  /**
   * The partitions assigned anew whose table holds them further than they were processed, with the
   * offset to read on from. Each is decided once: after some of its records were processed, when
   * its table is open.
   */
  Map<TopicPartition, Long> decide(OffsetTracker offsets, Map<Identifier, TableState> tables) {
    if (waiting.isEmpty()) {
      return Map.of();
    }
    Map<TopicPartition, Long> skips = new HashMap<>();
    for (Iterator<Map.Entry<TopicPartition, Identifier>> it = waiting.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<TopicPartition, Identifier> partition = it.next();
      Long processed = offsets.processedNext(partition.getKey());
      TableState table = tables.get(partition.getValue());
      if (processed == null || table == null) {
        continue;
      }
      it.remove();
      OptionalLong held = table.containedNext(SourceOrder.partitionOf(partition.getKey()));
      if (held.isPresent() && held.getAsLong() > processed) {
        skips.put(partition.getKey(), held.getAsLong());
      }
    }
    return skips;
  }

  /** A batch without the records below the offsets skipped to, and the partitions to seek. */
  record Skipped(List<SinkRecord> records, Map<TopicPartition, Long> seeks) {}

  /**
   * Drops the records of {@code batch} below the offsets of {@code skips}; a partition is sought to
   * the record before its offset unless the batch reaches that record already.
   */
  static Skipped skip(Collection<SinkRecord> batch, Map<TopicPartition, Long> skips) {
    List<SinkRecord> kept = new ArrayList<>(batch.size());
    Map<TopicPartition, Long> seeks = new HashMap<>();
    // decide() skips only past records processed, so an offset to skip to is at least 1
    skips.forEach((partition, to) -> seeks.put(partition, to - 1));
    for (SinkRecord record : batch) {
      TopicPartition partition =
          new TopicPartition(record.originalTopic(), record.originalKafkaPartition());
      Long to = skips.get(partition);
      if (to == null) {
        kept.add(record);
        continue;
      }
      long offset = record.originalKafkaOffset();
      if (offset >= to - 1) {
        // the consumer stands at the offset or beyond it
        seeks.remove(partition);
      }
      if (offset >= to) {
        kept.add(record);
      }
    }
    return new Skipped(kept, seeks);
  }
}
