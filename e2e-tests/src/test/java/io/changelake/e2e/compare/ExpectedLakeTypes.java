package io.changelake.e2e.compare;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;

/**
 * THE table of which Paimon column a PostgreSQL column must become, written by hand from
 * schema-evolution/README.md's mapping and Debezium's documented defaults for PostgreSQL ({@code
 * decimal.handling.mode=precise}, {@code time.precision.mode=adaptive}, {@code
 * interval.handling.mode=numeric}, {@code binary.handling.mode=bytes}, no {@code
 * column.propagate.source.type}) — deliberately not derived from schema-evolution's code, so a
 * regression there shows up here as a type difference.
 *
 * <p>The key is PostgreSQL's own spelling of the declared type ({@code format_type(atttypid,
 * atttypmod)}: {@code integer}, {@code numeric(12,3)}, {@code character varying(20)}, {@code
 * timestamp without time zone}, {@code integer[]}); user-defined enums are keyed {@code enum}.
 * Nullability: primary-key columns are NOT NULL (Paimon requires it), every other column is
 * nullable whatever the database declares — the sink's rule for tables it creates (connect-sink's
 * {@code TableProvisioner}: a delete carries the key alone, and a column added later must not make
 * older rows invalid).
 */
public final class ExpectedLakeTypes {

  /** One row of the table: declared types matching {@code pattern} map to {@code type}. */
  private record Rule(Pattern pattern, java.util.function.Function<Matcher, DataType> type) {}

  private static Rule exact(String declared, DataType type) {
    return new Rule(Pattern.compile(Pattern.quote(declared)), m -> type);
  }

  private static Rule pattern(String regex, java.util.function.Function<Matcher, DataType> type) {
    return new Rule(Pattern.compile(regex), type);
  }

  private static int group(Matcher m, int g, int absent) {
    return m.group(g) == null ? absent : Integer.parseInt(m.group(g));
  }

  private static final List<Rule> RULES =
      List.of(
          exact("smallint", DataTypes.SMALLINT()),
          exact("integer", DataTypes.INT()),
          exact("bigint", DataTypes.BIGINT()),
          exact("oid", DataTypes.BIGINT()),
          // Debezium's Decimal with scale and precision; PostgreSQL numeric(p) is numeric(p,0)
          pattern(
              "numeric\\((\\d+)(?:,(\\d+))?\\)",
              m -> DataTypes.DECIMAL(group(m, 1, 0), group(m, 2, 0))),
          // VariableScaleDecimal: Paimon has no unbounded decimal, the exact digits go to text
          exact("numeric", DataTypes.STRING()),
          exact("real", DataTypes.FLOAT()),
          exact("double precision", DataTypes.DOUBLE()),
          exact("boolean", DataTypes.BOOLEAN()),
          exact("text", DataTypes.STRING()),
          // without column.propagate.source.type Debezium sends plain STRING, length unknown
          pattern("character varying(\\(\\d+\\))?", m -> DataTypes.STRING()),
          pattern("character(\\(\\d+\\))?", m -> DataTypes.STRING()),
          exact("uuid", DataTypes.STRING()),
          exact("json", DataTypes.STRING()),
          exact("jsonb", DataTypes.STRING()),
          exact("enum", DataTypes.STRING()),
          exact("bytea", DataTypes.BYTES()),
          exact("date", DataTypes.DATE()),
          // adaptive: time(0..3) is io.debezium.time.Time (ms) -> TIME(3); time(4..6) and plain
          // time (6 digits) are MicroTime, which Paimon's millisecond TIME cannot hold -> STRING
          pattern(
              "time(?:\\((\\d)\\))? without time zone",
              m -> group(m, 1, 6) <= 3 ? DataTypes.TIME(3) : DataTypes.STRING()),
          pattern(
              "timestamp(?:\\((\\d)\\))? without time zone",
              m -> DataTypes.TIMESTAMP(group(m, 1, 6) <= 3 ? 3 : 6)),
          // ZonedTimestamp, every precision
          pattern(
              "timestamp(?:\\((\\d)\\))? with time zone",
              m -> DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6)),
          // MicroDuration: microseconds
          exact("interval", DataTypes.BIGINT()));

  private ExpectedLakeTypes() {}

  /**
   * The Paimon type (nullability included) a column declared {@code declaredType} must have in the
   * lake; empty for a type this table does not know (the comparison then reports it, so the table
   * grows with the scenarios).
   */
  public static Optional<DataType> of(String declaredType, boolean notNull) {
    Optional<DataType> type;
    if (declaredType.endsWith("[]")) {
      // Debezium's array elements are optional: ARRAY<T> with nullable T
      type = of(declaredType.substring(0, declaredType.length() - 2), false).map(DataTypes::ARRAY);
    } else {
      type = Optional.empty();
      for (Rule rule : RULES) {
        Matcher m = rule.pattern().matcher(declaredType);
        if (m.matches()) {
          type = Optional.of(rule.type().apply(m));
          break;
        }
      }
    }
    return type.map(t -> t.copy(!notNull));
  }

  /** The expected type of {@code column}, whose primary-key membership is {@code inKey}. */
  public static Optional<DataType> of(DbTableReader.Column column, boolean inKey) {
    return of(column.declaredType(), inKey);
  }
}
