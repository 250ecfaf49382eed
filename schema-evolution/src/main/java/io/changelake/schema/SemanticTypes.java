package io.changelake.schema;

import java.util.Optional;
import java.util.Set;
import org.apache.kafka.connect.data.Schema;
import org.apache.paimon.types.DataField;

/**
 * The Debezium semantic type of a column whose Paimon type cannot tell it — a {@code uuid} or
 * {@code json} column is a Paimon STRING, a microsecond {@code time} a fixed-format STRING. {@link
 * TypeMapping} stores the Connect schema name in the column's Paimon description when it creates or
 * adds the column; {@link ConnectMapping} reads it back, so the changelog source publishes the
 * column under Debezium's name again and consumers such as Debezium's JDBC sink recreate the
 * database's own type (uuid, json, time, ...).
 *
 * <p>Only names whose value travels unchanged through the lake, or with an exact conversion, are
 * carried. {@code io.debezium.data.VariableScaleDecimal} (a {@code numeric} without scale) is not:
 * Debezium's JDBC sink creates a {@code double precision} column for it, losing digits the lake's
 * decimal string keeps, so such columns stay text. Nor is {@code io.debezium.time.MicroDuration}
 * (an {@code interval}, BIGINT µs in the lake): Debezium's JDBC sink binds it to {@code interval}
 * dropping the microseconds (measured in e2e {@code MirroringTest}), so it stays a number.
 */
public final class SemanticTypes {
  /**
   * How a column description names the semantic type, e.g. {@code
   * connect.name=io.debezium.data.Uuid}.
   */
  static final String MARKER = "connect.name=";

  static final String UUID = "io.debezium.data.Uuid";
  static final String JSON = "io.debezium.data.Json";
  static final String XML = "io.debezium.data.Xml";
  static final String LTREE = "io.debezium.data.Ltree";

  /** Names of string values kept as they are in a STRING column. */
  static final Set<String> STRINGS =
      Set.of(UUID, JSON, XML, LTREE, DebeziumTypes.INTERVAL, DebeziumTypes.ZONED_TIME);

  private SemanticTypes() {}

  /** The description to store with a column of {@code schema}: its semantic name, or null. */
  public static String description(Schema schema) {
    String name = schema.name();
    if (name == null) {
      return null;
    }
    boolean carried =
        (STRINGS.contains(name) && schema.type() == Schema.Type.STRING)
            || (name.equals(DebeziumTypes.MICRO_TIME) && schema.type() == Schema.Type.INT64);
    return carried ? MARKER + name : null;
  }

  /** The semantic name stored with {@code field}, if any. */
  public static Optional<String> of(DataField field) {
    String description = field.description();
    if (description == null || !description.startsWith(MARKER)) {
      return Optional.empty();
    }
    return Optional.of(description.substring(MARKER.length()).trim());
  }
}
