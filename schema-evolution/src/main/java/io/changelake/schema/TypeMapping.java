package io.changelake.schema;

import org.apache.kafka.connect.data.Schema;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;

/**
 * The one place deciding which Paimon type holds a Kafka Connect schema: Connect primitives and
 * logical types, Debezium's semantic types ({@code io.debezium.time.*}, {@code io.debezium.data.*},
 * geometries) for PostgreSQL and MySQL/MariaDB under every {@code time.precision.mode} and {@code
 * decimal.handling.mode}, arrays, maps and nested structs, whether they came through the JSON or an
 * Avro converter. The full table is in the module README.
 */
public final class TypeMapping {

  private TypeMapping() {}

  /** The Paimon type for {@code schema}; nullable exactly when the schema is optional. */
  public static DataType toPaimon(Schema schema) {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }

  /**
   * The Paimon row type for a Connect struct schema, one column per field in field order.
   *
   * @throws IllegalArgumentException if {@code structSchema} is not a struct
   */
  public static RowType toRowType(Schema structSchema) {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }
}
