package io.changelake.source;

import io.changelake.lsm.changelog.ReaderPosition;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * A batch of one table's changelog turned into records on the read-ahead thread, not yet handed to
 * Connect. Until {@link TablePublisher#handOver} nothing of it counts as published: a batch dropped
 * after a failure leaves no trace, so the next reader resumes just after the last batch handed
 * over.
 *
 * <p>It keeps of the batch it was built from only what the hand-over needs, not its rows: up to
 * {@code ReadAhead}'s capacity of batches wait here, and rows kept alive with their records would
 * be copied by every young collection while they wait (the records hold the values already).
 *
 * @param snapshotId the snapshot the changes belong to
 * @param endOfSnapshot whether the batch holds the snapshot's last change
 * @param records the records of the changes, in order
 * @param keys per record, the bucket key of its change (or of the truncate)
 * @param positions per record, the position just after its change (its source offset)
 */
record ReadyBatch(
    long snapshotId,
    boolean endOfSnapshot,
    List<SourceRecord> records,
    int[] keys,
    ReaderPosition[] positions) {}
