package io.changelake.sink.task;

import io.changelake.sink.decode.SourcePosition;
import io.changelake.sink.decode.StreamPosition;
import java.util.Optional;

/**
 * What a table commit records about one Kafka partition next to its offset (lsm-writer's commit
 * mark): the highest source position of the partition's records before that offset, and the
 * position of the newest truncate the table applied.
 *
 * <p>The reached position orders a delete that arrives without one (a tombstone of a flattened
 * stream) after every earlier version of its key, also after a restart; it also tells a record
 * consumed again after a restart from one of a re-created topic (see {@link SourceOrder}).
 *
 * @param reached the highest source position among the partition's records before the committed
 *     offset, empty when none of them had one
 * @param truncatedAt the source position of the table's newest truncate, when it had one
 * @param stream the partition's highest {@link StreamPosition} before the committed offset, with
 *     the latest source time seen, to tell a source log that restarted lower from a resend
 */
record PartitionMark(
    Optional<SourcePosition> reached,
    Optional<SourcePosition> truncatedAt,
    Optional<StreamPosition> stream) {
  private static final String TRUNCATE = "|truncated=";
  // last, so marks written before it existed read the same
  private static final String STREAM = "|stream=";

  static final PartitionMark NONE = new PartitionMark(Optional.empty(), Optional.empty());

  PartitionMark(Optional<SourcePosition> reached, Optional<SourcePosition> truncatedAt) {
    this(reached, truncatedAt, Optional.empty());
  }

  /** The text stored in the commit; empty when there is nothing to store. */
  Optional<String> encode() {
    if (reached.isEmpty() && truncatedAt.isEmpty() && stream.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        reached.map(SourcePosition::encode).orElse("")
            + truncatedAt.map(p -> TRUNCATE + p.encode()).orElse("")
            + stream.map(p -> STREAM + p.encode()).orElse(""));
  }

  static PartitionMark parse(String text) {
    int streamAt = text.indexOf(STREAM);
    Optional<StreamPosition> stream =
        streamAt < 0
            ? Optional.empty()
            : Optional.of(StreamPosition.parse(text.substring(streamAt + STREAM.length())));
    return parseWithoutStream(streamAt < 0 ? text : text.substring(0, streamAt)).withStream(stream);
  }

  private PartitionMark withStream(Optional<StreamPosition> stream) {
    return new PartitionMark(reached, truncatedAt, stream);
  }

  private static PartitionMark parseWithoutStream(String text) {
    int truncate = text.indexOf(TRUNCATE);
    String reached = truncate < 0 ? text : text.substring(0, truncate);
    return new PartitionMark(
        reached.isEmpty() ? Optional.empty() : Optional.of(SourcePosition.parse(reached)),
        truncate < 0
            ? Optional.empty()
            : Optional.of(SourcePosition.parse(text.substring(truncate + TRUNCATE.length()))));
  }

  /** This mark with the higher of both positions of each kind of information. */
  PartitionMark merge(PartitionMark other) {
    return new PartitionMark(
        higher(reached, other.reached),
        higher(truncatedAt, other.truncatedAt),
        highestStream(stream, other.stream));
  }

  /** A partition's stream high mark from an older and a newer one (see {@link StreamPosition}). */
  static Optional<StreamPosition> highestStream(
      Optional<StreamPosition> older, Optional<StreamPosition> newer) {
    if (older.isEmpty()) {
      return newer;
    }
    if (newer.isEmpty()) {
      return older;
    }
    return Optional.of(StreamPosition.highest(older.get(), newer.get()));
  }

  static Optional<SourcePosition> higher(Optional<SourcePosition> a, Optional<SourcePosition> b) {
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return a.get().value() >= b.get().value() ? a : b;
  }
}
