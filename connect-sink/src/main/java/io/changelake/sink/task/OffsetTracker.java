package io.changelake.sink.task;

import io.changelake.lsm.commit.SourcePartition;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Kafka positions of one task: how far records were processed (written to a writer, skipped or sent
 * to the dead-letter queue), and how far that is committed to the tables. Only the latter is
 * reported to Connect.
 */
final class OffsetTracker {
  private final Duration interval;
  private final long bufferBytes;
  private final Map<TopicPartition, Long> processed = new HashMap<>();
  private final Map<TopicPartition, Long> committed = new HashMap<>();
  // the first offset delivered per partition since it was assigned: where a rewind goes back to
  // while nothing of the partition is committed yet
  private final Map<TopicPartition, Long> firstDelivered = new HashMap<>();
  // the next offset after the last one delivered per partition: what put was given
  private final Map<TopicPartition, Long> delivered = new HashMap<>();
  private long lastCommitNanos;

  OffsetTracker(Duration interval, long bufferBytes) {
    this(interval, bufferBytes, 0, 1);
  }

  /**
   * Task {@code taskId} of {@code taskCount} first commits after (taskId + 1) / taskCount of the
   * interval, then every interval: the tasks of a connector start together, and rounds that
   * coincide stop the whole connector at once while they compete for the same cores and object
   * store (docs/benchmarks.md, issue 14). Staggered, one task commits while the others read.
   */
  OffsetTracker(Duration interval, long bufferBytes, int taskId, int taskCount) {
    this.interval = interval;
    this.bufferBytes = bufferBytes;
    this.lastCommitNanos = System.nanoTime() - firstRoundOffsetNanos(interval, taskId, taskCount);
  }

  /** How much earlier than a full interval the first round of task {@code taskId} is due. */
  static long firstRoundOffsetNanos(Duration interval, int taskId, int taskCount) {
    if (taskCount <= 1 || taskId < 0 || taskId >= taskCount) {
      return 0;
    }
    long firstDue = interval.toNanos() / taskCount * (taskId + 1);
    return interval.toNanos() - firstDue;
  }

  /**
   * Connect delivered the records of {@code partition} from offset {@code first} to {@code last}
   * (whether or not they get processed).
   */
  void delivered(TopicPartition partition, long first, long last) {
    firstDelivered.putIfAbsent(partition, first);
    delivered.merge(partition, last + 1, Math::max);
  }

  /**
   * The partitions whose records were delivered to the task beyond what is committed to the tables,
   * as {@code committed..delivered} (the next offsets): rows on their way, or stuck.
   */
  Map<TopicPartition, String> deliveredNotCommitted() {
    Map<TopicPartition, String> out = new LinkedHashMap<>();
    delivered.forEach(
        (tp, next) -> {
          long from = committed.getOrDefault(tp, firstDelivered.getOrDefault(tp, next));
          if (next > from) {
            out.put(tp, from + ".." + next);
          }
        });
    return out;
  }

  /**
   * Forgets every position not committed to the tables, for records that must be delivered again,
   * and returns where each partition delivered so far has to be read from: its committed position,
   * else the first offset delivered.
   */
  Map<TopicPartition, Long> rewind() {
    Map<TopicPartition, Long> to = new HashMap<>(firstDelivered);
    to.putAll(committed);
    processed.clear();
    processed.putAll(committed);
    // delivered anew from there
    delivered.clear();
    return to;
  }

  /** Every record of {@code partition} before {@code nextOffset} is processed. */
  void processed(TopicPartition partition, long nextOffset) {
    processed.put(partition, nextOffset);
  }

  /** The first offset of {@code partition} delivered since it was assigned, if any. */
  Long firstDelivered(TopicPartition partition) {
    return firstDelivered.get(partition);
  }

  /** The next offset of {@code partition} to process, if any of its records was processed. */
  Long processedNext(TopicPartition partition) {
    return processed.get(partition);
  }

  /** The processed positions, as stored with table commits. */
  Map<TopicPartition, Long> processedSnapshot() {
    return Map.copyOf(processed);
  }

  /** The positions committed to every table, as reported to Connect. */
  Map<TopicPartition, Long> committedSnapshot() {
    return Map.copyOf(committed);
  }

  /**
   * The first and last offset of each partition in a batch ({@code topic-partition=first..last}),
   * for logs: a batch of thousands reads as a line per partition.
   */
  static Map<TopicPartition, String> offsetRanges(Collection<SinkRecord> records) {
    Map<TopicPartition, long[]> ranges = new LinkedHashMap<>();
    for (SinkRecord record : records) {
      long offset = record.originalKafkaOffset();
      ranges.merge(
          new TopicPartition(record.originalTopic(), record.originalKafkaPartition()),
          new long[] {offset, offset},
          (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
    }
    Map<TopicPartition, String> out = new LinkedHashMap<>();
    ranges.forEach((tp, range) -> out.put(tp, range[0] + ".." + range[1]));
    return out;
  }

  static Map<SourcePartition, Long> asSourcePartitions(Map<TopicPartition, Long> positions) {
    Map<SourcePartition, Long> out = new HashMap<>();
    positions.forEach((tp, next) -> out.put(new SourcePartition(tp.topic(), tp.partition()), next));
    return out;
  }

  /** A commit round starts now: the next is due one interval later, whenever this one lands. */
  void roundStarted() {
    lastCommitNanos = System.nanoTime();
  }

  /** The positions of {@code snapshot} are now committed to every table. */
  void committed(Map<TopicPartition, Long> snapshot) {
    committed.putAll(snapshot);
  }

  boolean intervalElapsed() {
    return System.nanoTime() - lastCommitNanos >= interval.toNanos();
  }

  long millisUntilDue() {
    return (interval.toNanos() - (System.nanoTime() - lastCommitNanos)) / 1_000_000;
  }

  boolean commitDue(long bufferedBytes) {
    return bufferFull(bufferedBytes) || intervalElapsed();
  }

  /** Whether {@code bufferedBytes} reached commit.buffer.bytes. */
  boolean bufferFull(long bufferedBytes) {
    return bufferedBytes >= bufferBytes;
  }

  /** True when records were processed since the last commit round. */
  boolean hasProcessedSinceCommit() {
    return !processed.equals(committed);
  }

  /** Committed positions of the partitions Connect asks about. */
  Map<TopicPartition, OffsetAndMetadata> committedOffsets(Collection<TopicPartition> assigned) {
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    for (TopicPartition tp : assigned) {
      Long next = committed.get(tp);
      if (next != null) {
        out.put(tp, new OffsetAndMetadata(next));
      }
    }
    return out;
  }

  /** Makes the next {@link #intervalElapsed} true, for tests of the commit path. */
  void expireInterval() {
    lastCommitNanos = System.nanoTime() - interval.toNanos();
  }

  void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(
        tp -> {
          processed.remove(tp);
          committed.remove(tp);
          firstDelivered.remove(tp);
          delivered.remove(tp);
        });
  }
}
