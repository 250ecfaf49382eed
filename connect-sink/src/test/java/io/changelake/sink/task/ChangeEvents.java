package io.changelake.sink.task;

import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.sink.decode.ChangeEvent.RowChange;
import io.changelake.sink.decode.DebeziumEnvelopeDecoder;
import io.changelake.testkit.Change;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * Decoded change events of a small customers table, for unit tests of the steps after decoding: the
 * test kit's envelopes, decoded by the sink's own decoder.
 */
final class ChangeEvents {
  static final DebeziumTable CUSTOMERS =
      DebeziumTable.builder("customers")
          .topic("customers")
          .key("id", Schema.INT32_SCHEMA)
          .column("name", Schema.STRING_SCHEMA)
          .column("bio", Schema.OPTIONAL_STRING_SCHEMA)
          .build();
  static final Schema ROW = CUSTOMERS.rowSchema();
  static final String UNAVAILABLE = "__debezium_unavailable_value";

  private ChangeEvents() {}

  static Struct key(int id) {
    return CUSTOMERS.key(id);
  }

  static Struct row(int id, String name, String bio) {
    return CUSTOMERS.row(id, name, bio);
  }

  static RowChange change(
      DebeziumOp op, Struct key, Struct before, Struct after, long lsn, long offset) {
    Change change = new Change(CUSTOMERS, op, key, before, after, lsn, 1L, null);
    return (RowChange)
        new DebeziumEnvelopeDecoder().decode(change.toSinkRecord(InputShape.ENVELOPE, offset));
  }
}
