package io.changelake.testkit;

import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.schema.debezium.EnvelopeFields;
import io.changelake.schema.debezium.EnvelopeFields.Source;
import java.util.Optional;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * What Debezium's {@code ExtractNewRecordState} 3.6.1 makes of one envelope, for each {@link
 * InputShape}. Checked against the real transform by {@code FlatteningMatchesDebeziumTest}:
 *
 * <ul>
 *   <li>the row keeps the row schema's name and fields, but is not optional;
 *   <li>added fields come as {@code __deleted} (rewrite only), then {@code __op}, {@code __table},
 *       {@code __lsn}, {@code __source_ts_ms}, all optional;
 *   <li>a delete is a tombstone whose value schema is the (optional) row schema, unless rewritten
 *       to its before row with {@code __deleted=true};
 *   <li>Debezium's own tombstones and truncates are dropped (truncates are kept here: see {@link
 *       Change#sinkRecord}).
 * </ul>
 */
final class Flattening {
  static final String DELETED = EnvelopeFields.FLATTENED_PREFIX + "deleted";
  static final String OP = EnvelopeFields.FLATTENED_PREFIX + EnvelopeFields.OP;
  static final String TABLE = EnvelopeFields.FLATTENED_PREFIX + Source.TABLE;
  static final String LSN = EnvelopeFields.FLATTENED_PREFIX + Source.LSN;
  static final String SOURCE_TS_MS = EnvelopeFields.FLATTENED_SOURCE_PREFIX + Source.TS_MS;

  private Flattening() {}

  static Optional<Change.Value> of(Change change, InputShape shape) {
    DebeziumTable table = change.table();
    if (change.isTombstone()) {
      return shape.isFlattened() ? Optional.empty() : Optional.of(new Change.Value(null, null));
    }
    if (!shape.isFlattened() || change.op() == DebeziumOp.TRUNCATE) {
      return Optional.of(new Change.Value(table.envelopeSchema(), change.envelope()));
    }
    boolean delete = change.op() == DebeziumOp.DELETE;
    if (delete && !shape.rewritesDeletes()) {
      return Optional.of(new Change.Value(table.rowSchema(), null));
    }
    Schema schema = schema(table.rowSchema(), shape);
    Struct image = delete ? change.before() : change.after();
    Struct row = new Struct(schema);
    for (Field f : table.rowSchema().fields()) {
      row.put(f.name(), image.get(f));
    }
    if (shape.rewritesDeletes()) {
      row.put(DELETED, Boolean.toString(delete));
    }
    if (shape.addsFields()) {
      row.put(OP, change.op().code())
          .put(TABLE, table.table())
          .put(LSN, change.lsn())
          .put(SOURCE_TS_MS, change.sourceTsMs());
    }
    return Optional.of(new Change.Value(schema, row));
  }

  static Schema schema(Schema rowSchema, InputShape shape) {
    SchemaBuilder builder = SchemaBuilder.struct().name(rowSchema.name());
    for (Field f : rowSchema.fields()) {
      builder.field(f.name(), f.schema());
    }
    if (shape.rewritesDeletes()) {
      builder.field(DELETED, Schema.OPTIONAL_STRING_SCHEMA);
    }
    if (shape.addsFields()) {
      builder
          .field(OP, Schema.OPTIONAL_STRING_SCHEMA)
          .field(TABLE, Schema.OPTIONAL_STRING_SCHEMA)
          .field(LSN, Schema.OPTIONAL_INT64_SCHEMA)
          .field(SOURCE_TS_MS, Schema.OPTIONAL_INT64_SCHEMA);
    }
    return builder.build();
  }
}
