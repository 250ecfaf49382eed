package io.changelake.sink.task;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.sink.decode.ChangeEvent.Truncate;
import io.changelake.sink.decode.Origin;
import io.changelake.sink.decode.SourcePosition;
import io.changelake.sink.decode.StreamPosition;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The source positions a task has seen per Kafka partition, and what they decide: the position of a
 * change that carries none (a tombstone of a flattened stream), and whether the input can be
 * trusted (a re-created topic, positions of another kind going backwards).
 *
 * <p>Per partition it keeps the highest position reached so far, not the last one: PostgreSQL's
 * change LSNs are not monotonic across concurrent transactions, but every later version of a key
 * has a higher position than any record before it in the topic (a row's next change waits for the
 * previous one to commit). So the highest position reached before a tombstone orders its delete
 * after every earlier version of its key and before every later one, and the Kafka offset breaks
 * the tie. The highest position is also committed with each table (a {@link PartitionMark}), so a
 * tombstone that is the first record a task sees after a restart, a rebalance or records skipped as
 * already written is ordered just as well.
 */
final class SourceOrder {
  private final Map<TopicPartition, SourcePosition> reached = new HashMap<>();
  // reached as of the last commit round: a rewind to the committed offsets reads the records after
  // them again, and a tombstone among them must not be ordered after records that follow it
  private final Map<TopicPartition, SourcePosition> reachedAtCommit = new HashMap<>();
  // the highest stream position per partition with the latest source time seen, and as of the
  // last commit round (see StreamPosition)
  private final Map<TopicPartition, StreamPosition> streamReached = new HashMap<>();
  private final Map<TopicPartition, StreamPosition> streamReachedAtCommit = new HashMap<>();

  /**
   * The position to order {@code position} (a record's own, possibly unknown) by, for table {@code
   * table}; empty when neither this task nor the table knows any position of the partition.
   */
  Optional<SourcePosition> orderBy(Origin origin, SourcePosition position, TableState table) {
    Optional<SourcePosition> bound = bound(origin.consumed(), table);
    if (!position.isKnown()) {
      return bound;
    }
    if (bound.isPresent()
        && bound.get().kind() != position.kind()
        && position.value() < bound.get().value()) {
      throw new ConnectException(
          "Record "
              + origin.describe()
              + " for table "
              + table.id.getFullName()
              + " carries source position "
              + position.describe()
              + ", below the "
              + bound.get().describe()
              + " its partition reached before: the kind of position changed (e.g. the add.fields"
              + " of ExtractNewRecordState), and every later change of an existing key would lose"
              + " against its stored version. Restore the previous setting, or rebuild the table"
              + " (see connect-sink's README, 'Positions going backwards')");
    }
    observe(origin.consumed(), position);
    return Optional.of(position);
  }

  /** Remembers a position seen in a partition (also of records skipped as already written). */
  void observe(TopicPartition partition, SourcePosition position) {
    if (position.isKnown()) {
      reached.merge(partition, position, (a, b) -> a.value() >= b.value() ? a : b);
    }
  }

  /**
   * Fails when the source's log went back: {@code stream} is below the highest stream position its
   * partition reached (this task's, or what the table committed), yet its source time is later than
   * any seen there. Debezium resending changes after a crash also goes back, but its changes are
   * the very ones seen before, none with a later source time; a log that restarted lower (a MySQL
   * failover or {@code RESET MASTER}, PostgreSQL on a new cluster) brings new changes, whose
   * positions would lose against the stored versions of their keys.
   */
  void checkStream(Origin origin, Optional<StreamPosition> stream, TableState table) {
    if (stream.isEmpty()) {
      return;
    }
    StreamPosition now = stream.get();
    Optional<StreamPosition> high = streamBound(origin.consumed(), table);
    if (high.isPresent()
        && high.get().comparableTo(now)
        && now.position().value() < high.get().position().value()
        && now.sourceTimestamp() > high.get().sourceTimestamp()) {
      throw new ConnectException(
          "Record "
              + origin.describe()
              + " for table "
              + table.id.getFullName()
              + " was emitted at log position "
              + now.describe()
              + " of source '"
              + now.source()
              + "', below the "
              + high.get().describe()
              + " its partition reached before, yet later in source time than any change before"
              + " it: the source database's log restarted lower (a MySQL/MariaDB failover or RESET"
              + " MASTER, PostgreSQL moved to a new cluster), not a resend by Debezium. Its change"
              + " and every later one of an existing key would lose against the stored versions,"
              + " which carry the old log's higher positions. Rebuild the tables fed by this topic"
              + " from the new database (see connect-sink's README, 'Positions going backwards')");
    }
    observeStream(origin.consumed(), stream);
  }

  /** Remembers a stream position seen in a partition (also of records skipped as written). */
  void observeStream(TopicPartition partition, Optional<StreamPosition> stream) {
    stream.ifPresent(now -> streamReached.merge(partition, now, StreamPosition::highest));
  }

  /**
   * Fails when a record the table seems to contain (its offset is below the one the table recorded)
   * has a position beyond every position the table recorded before that offset: it is not the same
   * record, the topic was re-created or its offsets reset onto other data, and skipping it would
   * lose it.
   */
  void checkContained(Origin origin, SourcePosition position, TableState table) {
    Optional<SourcePosition> recorded =
        table.committedMark(partitionOf(origin.consumed())).reached();
    if (position.isKnown()
        && recorded.isPresent()
        && recorded.get().kind() == position.kind()
        && position.value() > recorded.get().value()) {
      throw new ConnectException(
          "Record "
              + origin.describe()
              + " is below the offset table "
              + table.id.getFullName()
              + " recorded for its partition, so it looks written already, but its source position "
              + position.describe()
              + " is beyond the "
              + recorded.get().describe()
              + " of every record the table recorded before that offset: the topic was deleted and"
              + " re-created (its offsets started again at 0) or its consumer offsets were moved"
              + " onto other data. Skipping it would lose it. Re-create the sink connector under a"
              + " new name, or rebuild the table (see connect-sink's README, 'Re-created topics')");
    }
  }

  /**
   * The truncate's position in the kind the partition's rows are ordered by (flattened rows may
   * carry only their Kafka timestamp while the truncate envelope carries an LSN).
   */
  SourcePosition positionOf(Truncate truncate, TableState table) {
    SourcePosition best = truncate.positions().get(0);
    return bound(truncate.origin().consumed(), table)
        .flatMap(bound -> truncate.position(bound.kind()))
        .orElse(best);
  }

  /** The marks to commit with {@code table} for {@code partitions}. */
  Map<SourcePartition, String> marksFor(TableState table, Collection<SourcePartition> partitions) {
    Map<SourcePartition, String> marks = new HashMap<>();
    Optional<SourcePosition> truncated = table.truncatedAt();
    for (SourcePartition partition : partitions) {
      TopicPartition tp = new TopicPartition(partition.topic(), partition.partition());
      new PartitionMark(bound(tp, table), truncated, streamBound(tp, table))
          .encode()
          .ifPresent(mark -> marks.put(partition, mark));
    }
    return marks;
  }

  /** The positions processed so far are committed. */
  void committed() {
    committed(reached());
  }

  /** The positions reached so far, as a commit round sealed now records them. */
  Reached reached() {
    return new Reached(new HashMap<>(reached), new HashMap<>(streamReached));
  }

  /** A round sealed at {@code at} has landed: a rewind goes back to there, not further. */
  void committed(Reached at) {
    reachedAtCommit.clear();
    reachedAtCommit.putAll(at.positions());
    streamReachedAtCommit.clear();
    streamReachedAtCommit.putAll(at.streams());
  }

  /** The reached positions at the moment a commit round was sealed. */
  record Reached(
      Map<TopicPartition, SourcePosition> positions, Map<TopicPartition, StreamPosition> streams) {}

  /** Processing goes back to the committed positions. */
  void rewind() {
    reached.clear();
    reached.putAll(reachedAtCommit);
    streamReached.clear();
    streamReached.putAll(streamReachedAtCommit);
  }

  void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(reached::remove);
    partitions.forEach(reachedAtCommit::remove);
    partitions.forEach(streamReached::remove);
    partitions.forEach(streamReachedAtCommit::remove);
  }

  private Optional<StreamPosition> streamBound(TopicPartition partition, TableState table) {
    return PartitionMark.highestStream(
        table.committedMark(partitionOf(partition)).stream(),
        Optional.ofNullable(streamReached.get(partition)));
  }

  private Optional<SourcePosition> bound(TopicPartition partition, TableState table) {
    return PartitionMark.higher(
        Optional.ofNullable(reached.get(partition)),
        table.committedMark(partitionOf(partition)).reached());
  }

  static SourcePartition partitionOf(TopicPartition tp) {
    return new SourcePartition(tp.topic(), tp.partition());
  }
}
