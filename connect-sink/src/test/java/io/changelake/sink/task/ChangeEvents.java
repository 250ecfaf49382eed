package io.changelake.sink.task;

import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.sink.decode.ChangeEvent.RowChange;
import io.changelake.sink.decode.Origin;
import io.changelake.sink.decode.SourceInfo;
import io.changelake.sink.decode.SourcePosition;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/** Decoded change events of a small customers table, for task unit tests. */
final class ChangeEvents {
  static final Schema KEY = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();
  static final Schema ROW =
      SchemaBuilder.struct()
          .optional()
          .field("id", Schema.INT32_SCHEMA)
          .field("name", Schema.STRING_SCHEMA)
          .field("bio", Schema.OPTIONAL_STRING_SCHEMA)
          .build();
  static final String UNAVAILABLE = "__debezium_unavailable_value";

  private ChangeEvents() {}

  static Struct key(int id) {
    return new Struct(KEY).put("id", id);
  }

  static Struct row(int id, String name, String bio) {
    return new Struct(ROW).put("id", id).put("name", name).put("bio", bio);
  }

  static RowChange change(
      DebeziumOp op, Struct key, Struct before, Struct after, long lsn, long offset) {
    return new RowChange(
        new Origin("customers", 0, offset, new TopicPartition("customers", 0), 1L),
        op,
        key,
        before,
        after,
        new SourceInfo(
            Optional.of("shop"),
            Optional.of("public"),
            Optional.of("customers"),
            new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, lsn)));
  }
}
