package io.changelake.source.record;

import io.changelake.source.offset.AcknowledgedPositions;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * A record of the changelog source that carries, besides its offset map, the ticket its
 * acknowledgement is reported with: Connect hands {@code commitRecord} the very record {@code poll}
 * returned (before transformations), so the task finds the bucket and position of an acknowledged
 * record without looking up its partition or parsing its offset map.
 *
 * <p>Equality is {@link SourceRecord}'s (which also compares classes): the ticket is bookkeeping,
 * not content.
 */
public final class PublishedRecord extends SourceRecord {

  // set on the task thread when handed to Connect, read on the producer's after Connect's send
  // (which hands the record over through the producer's synchronized queue)
  private AcknowledgedPositions.Ticket ticket;

  PublishedRecord(
      Map<String, ?> sourcePartition,
      Map<String, ?> sourceOffset,
      String topic,
      Schema keySchema,
      Object key,
      Schema valueSchema,
      Object value,
      Long timestamp) {
    super(
        sourcePartition, sourceOffset, topic, null, keySchema, key, valueSchema, value, timestamp);
  }

  /** The ticket of this record's position, once handed to Connect; null before. */
  public AcknowledgedPositions.Ticket ticket() {
    return ticket;
  }

  /** Records the ticket of this record's position when it is handed to Connect. */
  public void ticket(AcknowledgedPositions.Ticket ticket) {
    this.ticket = ticket;
  }
}
