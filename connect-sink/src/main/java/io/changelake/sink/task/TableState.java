package io.changelake.sink.task;

import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.commit.CommittedPartition;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.schema.RowConverter;
import io.changelake.sink.config.TableSettings;
import io.changelake.sink.decode.SourcePosition;
import io.changelake.sink.metrics.TableMetrics;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.connect.data.Schema;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.types.RowType;

/** What a task knows about one table it writes. */
final class TableState {
  final Identifier id;
  final TableSettings settings;
  private final WriterPool pool;
  final TableMetrics metrics;
  final MergeEngine mergeEngine;

  /** The table's partial-update sequence groups, if the sink made them. */
  final SequenceGroups.Layout groups;

  /**
   * Topics whose records were checked against the groups (and given theirs) since the converters
   * were last cleared: a converter is per schema, and two topics may send the very same schema.
   */
  private final Set<String> groupedTopics = new HashSet<>();

  /** Converters per record schema, valid for the writer's current row type. */
  private final Map<Schema, RowConverter> converters = new HashMap<>();

  // converters use schemas as keys, whose hash walks every field: most records carry the very
  // schema instance of the record before, so check that first
  private Schema lastSchema;
  private RowConverter lastConverter;
  // the row type the converters write; the pool may reopen the writer (after closing it idle) on
  // a newer schema another task evolved to, and a converter of the old one would misalign columns
  private RowType convertersRowType;
  // the schema that row type was read from: Paimon builds (and validates) a new RowType on every
  // rowType() call, which per record cost more than converting the row; a table's schema object
  // stays the same until its writer is reopened
  private TableSchema convertersSchema;

  /** The next offset per partition the table already contains; null until read. */
  private Map<SourcePartition, Long> contained;

  /** What the table's commits recorded per partition next to those offsets; read with them. */
  private Map<SourcePartition, PartitionMark> marks;

  /** The newest truncate this task applied to the table, when it had a position. */
  private Optional<SourcePosition> truncatedHere = Optional.empty();

  /** The newest truncate the marks read with {@link #contained} record. */
  private Optional<SourcePosition> truncatedCommitted = Optional.empty();

  // commit users of the connector's tasks, whose snapshots record offsets
  private final CommitUsers users;

  /** The source tables (or topics, without a source block) this task wrote rows of into it. */
  final Set<SourceTable> sources = new HashSet<>();

  /** Rows were written since the last commit. */
  boolean dirty;

  // the Kafka timestamp (epoch ms) of the oldest row written since the table was last clean: a
  // round lands the tables holding the oldest rows first
  private long oldestRowMillis;

  // partitions a record of which was skipped as contained since the committed offsets were read
  private final Set<SourcePartition> skipped = new HashSet<>();

  // the partitions whose records were routed here since the table was opened: the only ones its
  // commits record (see positionsOf); most records come from the partition of the record before
  private final Set<SourcePartition> routedFrom = new HashSet<>();
  private SourcePartition lastRoutedFrom;

  TableState(
      Identifier id,
      TableSettings settings,
      WriterPool pool,
      TableMetrics metrics,
      CommitUsers users) {
    this.id = id;
    this.users = users;
    this.settings = settings;
    this.pool = pool;
    this.metrics = metrics;
    this.mergeEngine = MergeEngine.of(writer().table().options());
    this.groups = SequenceGroups.of(writer().table().options());
  }

  /** True when {@code topic}'s records may use the cached converters as they are. */
  boolean grouped(String topic) {
    return groups instanceof SequenceGroups.None || groupedTopics.contains(topic);
  }

  /** {@code topic}'s group is in the table as the converters see it. */
  void groupChecked(String topic) {
    groupedTopics.add(topic);
  }

  RowConverter converter(Schema schema) {
    TableSchema schemaNow = writer().table().schema();
    if (schemaNow != convertersSchema) {
      RowType current = schemaNow.logicalRowType();
      if (convertersRowType != null && !current.equals(convertersRowType)) {
        clearConverters();
      }
      convertersRowType = current;
      convertersSchema = schemaNow;
    }
    if (schema == lastSchema) {
      return lastConverter;
    }
    RowConverter converter = converters.get(schema);
    if (converter != null) {
      lastSchema = schema;
      lastConverter = converter;
    }
    return converter;
  }

  void converter(Schema schema, RowConverter converter) {
    convertersSchema = writer().table().schema();
    convertersRowType = convertersSchema.logicalRowType();
    converters.put(schema, converter);
    lastSchema = schema;
    lastConverter = converter;
  }

  /** Forgets every converter: the table's row type changed. */
  void clearConverters() {
    converters.clear();
    groupedTopics.clear();
    lastSchema = null;
    lastConverter = null;
  }

  /** The pool's writer; asked each time because the pool closes writers that sit idle. */
  TableWriter writer() {
    return pool.writer(id);
  }

  /** Re-read what the table contains on next use: another task may have written it meanwhile. */
  void forgetContained() {
    contained = null;
    marks = null;
  }

  /** True when the table's snapshots say it already holds the record at {@code offset}. */
  boolean contains(SourcePartition partition, long offset) {
    readCommitted();
    Long next = contained.get(partition);
    return next != null && offset < next;
  }

  /** The next offset of {@code partition} the table contains, if its commits recorded one. */
  OptionalLong containedNext(SourcePartition partition) {
    readCommitted();
    Long next = contained.get(partition);
    return next == null ? OptionalLong.empty() : OptionalLong.of(next);
  }

  /**
   * True the first time a record of {@code partition} is skipped as contained since the table's
   * committed offsets were read: such skips are logged once, not per record of a replay.
   */
  boolean firstSkip(SourcePartition partition) {
    readCommitted();
    return skipped.add(partition);
  }

  /** True when the table's commits recorded an offset of {@code partition}. */
  boolean recorded(SourcePartition partition) {
    readCommitted();
    return contained.containsKey(partition);
  }

  /** What the table's newest commit of {@code partition} recorded next to its offset. */
  PartitionMark committedMark(SourcePartition partition) {
    readCommitted();
    return marks.getOrDefault(partition, PartitionMark.NONE);
  }

  /** The newest truncate of the table, applied by this task or recorded by any commit. */
  Optional<SourcePosition> truncatedAt() {
    readCommitted();
    return PartitionMark.higher(truncatedHere, truncatedCommitted);
  }

  void truncated(SourcePosition position) {
    truncatedHere = PartitionMark.higher(truncatedHere, Optional.of(position));
  }

  private void readCommitted() {
    if (contained != null) {
      return;
    }
    Map<SourcePartition, CommittedPartition> committed =
        CommittedOffsets.readPartitions(writer().table(), users::isTask);
    contained = new HashMap<>();
    marks = new HashMap<>();
    skipped.clear();
    committed.forEach(
        (partition, entry) -> {
          contained.put(partition, entry.nextOffset());
          entry.mark().ifPresent(mark -> marks.put(partition, PartitionMark.parse(mark)));
        });
    truncatedCommitted = Optional.empty();
    for (PartitionMark mark : marks.values()) {
      truncatedCommitted = PartitionMark.higher(truncatedCommitted, mark.truncatedAt());
    }
  }

  /** A record of {@code partition} was routed to this table (written, skipped or refused). */
  void routedFrom(SourcePartition partition) {
    if (!partition.equals(lastRoutedFrom)) {
      routedFrom.add(partition);
      lastRoutedFrom = partition;
    }
  }

  /**
   * The positions of {@code positions} a commit of this table records: those of the partitions
   * whose records were routed here. A partition none of whose records came here has nothing in the
   * table to skip on a replay, so its position would only make every table's commit (snapshot
   * properties, marks, offset copy) grow with every partition of the task: with one topic per
   * table, a round's work with the square of the tables. The table's offset and mark of such a
   * partition stay those of its last commit that recorded it, an offset and mark from the same
   * commit.
   */
  Map<SourcePartition, Long> positionsOf(Map<SourcePartition, Long> positions) {
    Map<SourcePartition, Long> own = new HashMap<>();
    for (SourcePartition partition : routedFrom) {
      Long next = positions.get(partition);
      if (next != null) {
        own.put(partition, next);
      }
    }
    return own;
  }

  /** True when Paimon would accept a delete row for this table. */
  boolean acceptsDeletes() {
    Map<String, String> options = writer().table().options();
    if (mergeEngine != MergeEngine.PARTIAL_UPDATE) {
      return true;
    }
    return "true".equals(options.get("partial-update.remove-record-on-delete"))
        || options.containsKey("partial-update.remove-record-on-sequence-group")
        || "true".equals(options.get("ignore-delete"))
        || options.keySet().stream().anyMatch(k -> k.endsWith(".sequence-group"));
  }

  /**
   * A row was written: the table is dirty. Its age is its record's Kafka timestamp ({@code -1}
   * without one: the time it was written), not when the task met it: a put delivers the rows of
   * many tables at once, partition after partition, in no order of their age.
   */
  void rowWritten(long recordTimestamp) {
    long millis = recordTimestamp >= 0 ? recordTimestamp : System.currentTimeMillis();
    if (!dirty || millis < oldestRowMillis) {
      oldestRowMillis = millis;
    }
    dirty = true;
  }

  /** The age of the oldest row not yet in a round: epoch ms (see {@link #rowWritten}). */
  long oldestRowMillis() {
    return oldestRowMillis;
  }
}
