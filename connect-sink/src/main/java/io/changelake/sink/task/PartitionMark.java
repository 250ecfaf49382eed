package io.changelake.sink.task;

import io.changelake.lsm.commit.CommitMark;
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
  static final PartitionMark NONE = new PartitionMark(Optional.empty(), Optional.empty());

  PartitionMark(Optional<SourcePosition> reached, Optional<SourcePosition> truncatedAt) {
    this(reached, truncatedAt, Optional.empty());
  }

  /** The text stored in the commit (lsm-writer's {@link CommitMark} layout); empty if nothing. */
  Optional<String> encode() {
    return new CommitMark(
            reached.map(SourcePosition::encode).orElse(""),
            truncatedAt.map(SourcePosition::encode),
            stream.map(StreamPosition::toMark))
        .encode();
  }

  static PartitionMark parse(String text) {
    CommitMark mark = CommitMark.parse(text);
    return new PartitionMark(
        mark.reached().isEmpty()
            ? Optional.empty()
            : Optional.of(SourcePosition.parse(mark.reached())),
        mark.truncatedAt().map(SourcePosition::parse),
        mark.stream().map(StreamPosition::of));
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
    StreamPosition highest = StreamPosition.highest(older.get(), newer.get());
    return highest == newer.get() ? newer : Optional.of(highest);
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
