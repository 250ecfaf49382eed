package io.changelake.schema.evolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.schema.TypeMappingTest;
import io.debezium.time.MicroTime;
import io.debezium.time.MicroTimestamp;
import io.debezium.time.Time;
import io.debezium.time.Timestamp;
import io.debezium.time.ZonedTimestamp;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every evolution rule and policy, on a table {@code (id INT NOT NULL primary key, col <type>)} and
 * a record {@code (id INT32, col <schema>)}.
 */
class EvolutionPlannerTest {

  private static final Identifier TABLE = Identifier.create("db", "t");
  private final EvolutionPlanner planner = new EvolutionPlanner();

  static Stream<Arguments> widenings() {
    return Stream.of(
        widen(
            "TINYINT <- INT16",
            DataTypes.TINYINT(),
            Schema.OPTIONAL_INT16_SCHEMA,
            DataTypes.SMALLINT()),
        widen(
            "SMALLINT <- INT32",
            DataTypes.SMALLINT(),
            Schema.OPTIONAL_INT32_SCHEMA,
            DataTypes.INT()),
        widen("INT <- INT64", DataTypes.INT(), Schema.OPTIONAL_INT64_SCHEMA, DataTypes.BIGINT()),
        widen(
            "TINYINT <- INT64",
            DataTypes.TINYINT(),
            Schema.OPTIONAL_INT64_SCHEMA,
            DataTypes.BIGINT()),
        widen(
            "FLOAT <- FLOAT64",
            DataTypes.FLOAT(),
            Schema.OPTIONAL_FLOAT64_SCHEMA,
            DataTypes.DOUBLE()),
        widen(
            "DECIMAL(5,2) <- DECIMAL(7,2)",
            DataTypes.DECIMAL(5, 2),
            decimal(2, 7),
            DataTypes.DECIMAL(7, 2)),
        widen(
            "DECIMAL(5,2) <- DECIMAL(5,3) keeps integer digits",
            DataTypes.DECIMAL(5, 2),
            decimal(3, 5),
            DataTypes.DECIMAL(6, 3)),
        widen("INT <- DECIMAL(12,2)", DataTypes.INT(), decimal(2, 12), DataTypes.DECIMAL(12, 2)),
        widen(
            "DECIMAL(5,2) <- INT32 needs 10 integer digits",
            DataTypes.DECIMAL(5, 2),
            Schema.OPTIONAL_INT32_SCHEMA,
            DataTypes.DECIMAL(12, 2)),
        widen("INT <- DECIMAL(10,0)", DataTypes.INT(), decimal(0, 10), DataTypes.DECIMAL(10, 0)),
        widen(
            "BIGINT <- DECIMAL(20,0) (MySQL BIGINT UNSIGNED precise)",
            DataTypes.BIGINT(),
            decimal(0, 20),
            DataTypes.DECIMAL(20, 0)),
        widen(
            "TIMESTAMP(3) <- MicroTimestamp",
            DataTypes.TIMESTAMP(3),
            MicroTimestamp.builder().optional().build(),
            DataTypes.TIMESTAMP(6)),
        widen(
            "TIMESTAMP_LTZ(3) <- ZonedTimestamp",
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3),
            ZonedTimestamp.builder().optional().build(),
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6)),
        widen(
            "TIME(0) <- Time",
            DataTypes.TIME(0),
            Time.builder().optional().build(),
            DataTypes.TIME(3)),
        widen(
            "VARCHAR(10) <- VARCHAR(20) (column.propagate.source.type)",
            DataTypes.VARCHAR(10),
            TypeMappingTest.sourceString("VARCHAR", "20"),
            DataTypes.VARCHAR(20)),
        widen(
            "CHAR(3) <- VARCHAR(5)",
            DataTypes.CHAR(3),
            TypeMappingTest.sourceString("VARCHAR", "5"),
            DataTypes.VARCHAR(5)),
        widen(
            "ARRAY<INT> <- array<INT64>",
            DataTypes.ARRAY(DataTypes.INT()),
            SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).optional().build(),
            DataTypes.ARRAY(DataTypes.BIGINT())),
        widen(
            "MAP<STRING,INT> <- map<STRING,INT64>",
            DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.INT()),
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA)
                .optional()
                .build(),
            DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.BIGINT())),
        widen(
            "ROW<a INT> <- struct{a INT64, b STRING}",
            DataTypes.ROW(DataTypes.FIELD(5, "a", DataTypes.INT())),
            SchemaBuilder.struct()
                .optional()
                .field("a", Schema.OPTIONAL_INT64_SCHEMA)
                .field("b", Schema.STRING_SCHEMA)
                .build(),
            DataTypes.ROW(
                DataTypes.FIELD(5, "a", DataTypes.BIGINT()),
                DataTypes.FIELD(6, "b", DataTypes.STRING()))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("widenings")
  void widensLosslessly(String description, DataType column, Schema incoming, DataType widened) {
    EvolutionPlan plan = plan(column, incoming, Map.of());

    assertThat(plan.steps())
        .containsExactly(new SchemaChangeStep.WidenType("col", column, widened));
    assertThat(plan.target().getTypeAt(1).asSQLString()).isEqualTo(widened.asSQLString());
    assertThat(plan.fieldMapping().columnByField()).containsEntry("col", "col");
  }

  @ParameterizedTest(name = "{0} with widen-type=FAIL")
  @MethodSource("widenings")
  void wideningCanBeRefused(String description, DataType column, Schema incoming, DataType w) {
    assertThatThrownBy(() -> plan(column, incoming, Map.of(EvolutionPolicy.WIDEN_TYPE, "FAIL")))
        .isInstanceOf(SchemaEvolutionException.class)
        .hasMessageContaining("db.t")
        .hasMessageContaining("'col'")
        .hasMessageContaining(column.asSQLString())
        .hasMessageContaining(EvolutionPolicy.WIDEN_TYPE);
  }

  @ParameterizedTest(name = "{0} with widen-type=IGNORE")
  @MethodSource("widenings")
  void wideningCanBeIgnored(String description, DataType column, Schema incoming, DataType w) {
    EvolutionPlan plan = plan(column, incoming, Map.of(EvolutionPolicy.WIDEN_TYPE, "IGNORE"));

    assertThat(plan.steps()).isEmpty();
    assertThat(plan.ignored()).singleElement().asString().contains("widen-type=IGNORE");
    assertThat(plan.fieldMapping().columnByField()).containsEntry("col", "col");
  }

  static Stream<Arguments> alreadyFitting() {
    return Stream.of(
        Arguments.of(
            "BIGINT <- INT32 (narrower: never narrowed)",
            DataTypes.BIGINT(),
            Schema.OPTIONAL_INT32_SCHEMA),
        Arguments.of("DECIMAL(12,2) <- DECIMAL(10,2)", DataTypes.DECIMAL(12, 2), decimal(2, 10)),
        Arguments.of("DOUBLE <- FLOAT32", DataTypes.DOUBLE(), Schema.OPTIONAL_FLOAT32_SCHEMA),
        Arguments.of("BIGINT <- DECIMAL(18,0)", DataTypes.BIGINT(), decimal(0, 18)),
        Arguments.of("INT <- DECIMAL(9,0)", DataTypes.INT(), decimal(0, 9)),
        Arguments.of(
            "TIMESTAMP(6) <- Timestamp millis",
            DataTypes.TIMESTAMP(6),
            Timestamp.builder().optional().build()),
        Arguments.of("STRING <- STRING", DataTypes.STRING(), Schema.OPTIONAL_STRING_SCHEMA),
        Arguments.of(
            "VARCHAR(10) <- STRING of unknown length (checked per value)",
            DataTypes.VARCHAR(10),
            Schema.OPTIONAL_STRING_SCHEMA),
        Arguments.of(
            "VARBINARY(4) <- BYTES of unknown length",
            DataTypes.VARBINARY(4),
            Schema.OPTIONAL_BYTES_SCHEMA),
        Arguments.of("nullable column <- required field", DataTypes.INT(), Schema.INT32_SCHEMA),
        Arguments.of(
            "ROW<a,b> <- struct{a} (nested field missing)",
            DataTypes.ROW(
                DataTypes.FIELD(5, "a", DataTypes.INT()), DataTypes.FIELD(6, "b", DataTypes.INT())),
            SchemaBuilder.struct().optional().field("a", Schema.OPTIONAL_INT32_SCHEMA).build()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("alreadyFitting")
  void plansNothingWhenValuesAlreadyFit(String description, DataType column, Schema incoming) {
    EvolutionPlan plan = plan(column, incoming, Map.of());

    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.target()).isEqualTo(plan.current());
  }

  static Stream<Arguments> incompatible() {
    return Stream.of(
        Arguments.of(
            "INT <- STRING", DataTypes.INT(), Schema.OPTIONAL_STRING_SCHEMA, "col__string"),
        Arguments.of(
            "STRING <- INT32", DataTypes.STRING(), Schema.OPTIONAL_INT32_SCHEMA, "col__int"),
        Arguments.of(
            "BIGINT <- FLOAT64", DataTypes.BIGINT(), Schema.OPTIONAL_FLOAT64_SCHEMA, "col__double"),
        Arguments.of(
            "BOOLEAN <- INT16", DataTypes.BOOLEAN(), Schema.OPTIONAL_INT16_SCHEMA, "col__smallint"),
        Arguments.of(
            "DATE <- Timestamp",
            DataTypes.DATE(),
            Timestamp.builder().optional().build(),
            "col__timestamp_3"),
        Arguments.of(
            "TIME(3) <- MicroTime (a string)",
            DataTypes.TIME(3),
            MicroTime.builder().optional().build(),
            "col__string"),
        Arguments.of(
            "DECIMAL(38,0) <- DECIMAL(38,2) (would need 40 digits)",
            DataTypes.DECIMAL(38, 0),
            decimal(2, 38),
            "col__decimal_38_2"),
        Arguments.of(
            "TIMESTAMP(6) <- ZonedTimestamp",
            DataTypes.TIMESTAMP(6),
            ZonedTimestamp.builder().optional().build(),
            "col__timestamp_6_with_local_time_zone"));
  }

  @ParameterizedTest(name = "{0} is refused by default")
  @MethodSource("incompatible")
  void incompatibleChangesFailByDefault(
      String description, DataType column, Schema incoming, String lenient) {
    assertThatThrownBy(() -> plan(column, incoming, Map.of()))
        .isInstanceOf(SchemaEvolutionException.class)
        .hasMessageContaining("db.t")
        .hasMessageContaining("'col'")
        .hasMessageContaining(column.asSQLString() + " -> ")
        .hasMessageContaining(EvolutionPolicy.INCOMPATIBLE_TYPE)
        .satisfies(
            e ->
                assertThat(((SchemaEvolutionException) e).configKey())
                    .isEqualTo(EvolutionPolicy.INCOMPATIBLE_TYPE));
  }

  @ParameterizedTest(name = "{0} with LENIENT adds {3}")
  @MethodSource("incompatible")
  void incompatibleChangesCanBeLenient(
      String description, DataType column, Schema incoming, String lenient) {
    EvolutionPlan plan =
        plan(column, incoming, Map.of(EvolutionPolicy.INCOMPATIBLE_TYPE, "lenient"));

    assertThat(plan.steps()).singleElement().isInstanceOf(SchemaChangeStep.AddLenientColumn.class);
    assertThat(((SchemaChangeStep.AddLenientColumn) plan.steps().get(0)).newColumn())
        .isEqualTo(lenient);
    assertThat(plan.target().getFieldNames()).containsExactly("id", "col", lenient);
    assertThat(plan.fieldMapping().columnByField()).containsEntry("col", lenient);
  }

  @ParameterizedTest(name = "{0} with IGNORE drops the field")
  @MethodSource("incompatible")
  void incompatibleChangesCanBeIgnored(
      String description, DataType column, Schema incoming, String lenient) {
    EvolutionPlan plan =
        plan(column, incoming, Map.of(EvolutionPolicy.INCOMPATIBLE_TYPE, "IGNORE"));

    assertThat(plan.steps()).isEmpty();
    assertThat(plan.fieldMapping().droppedFields()).containsExactly("col");
  }

  @Test
  void lenientColumnIsReusedAndTheOldNotNullColumnRelaxed() {
    RowType current =
        row(
            field(0, "id", DataTypes.INT().notNull()),
            field(1, "col", DataTypes.INT().notNull()),
            field(2, "col__string", DataTypes.STRING()));
    EvolutionPolicy lenient =
        EvolutionPolicy.from(Map.of(EvolutionPolicy.INCOMPATIBLE_TYPE, "LENIENT"));

    EvolutionPlan plan =
        planner.plan(TABLE, current, List.of("id"), record(Schema.STRING_SCHEMA), lenient);

    assertThat(plan.steps())
        .containsExactly(new SchemaChangeStep.RelaxNotNull("col", DataTypes.INT().notNull()));
    assertThat(plan.fieldMapping().columnByField()).containsEntry("col", "col__string");
  }

  @Test
  void lenientColumnIsNotMissingWhenTheSourceFieldGoesBackToItsOldType() {
    RowType current =
        row(
            field(0, "id", DataTypes.INT().notNull()),
            field(1, "col", DataTypes.INT()),
            field(2, "col__string", DataTypes.STRING()));

    EvolutionPlan plan =
        planner.plan(
            TABLE,
            current,
            List.of("id"),
            record(Schema.OPTIONAL_INT32_SCHEMA),
            EvolutionPolicy.from(Map.of(EvolutionPolicy.MISSING_COLUMN, "FAIL")));

    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.fieldMapping().columnByField()).containsEntry("col", "col");
  }

  @Test
  void optionalFieldRelaxesNotNullUnderPolicy() {
    DataType notNull = DataTypes.INT().notNull();
    Schema optional = Schema.OPTIONAL_INT32_SCHEMA;

    assertThat(plan(notNull, optional, Map.of()).steps())
        .containsExactly(new SchemaChangeStep.RelaxNotNull("col", notNull));
    assertThat(plan(notNull, optional, Map.of(EvolutionPolicy.RELAX_NOT_NULL, "IGNORE")).steps())
        .isEmpty();
    assertThatThrownBy(
            () -> plan(notNull, optional, Map.of(EvolutionPolicy.RELAX_NOT_NULL, "FAIL")))
        .isInstanceOf(SchemaEvolutionException.class)
        .hasMessageContaining("INT NOT NULL -> INT")
        .hasMessageContaining(EvolutionPolicy.RELAX_NOT_NULL);
  }

  @Test
  void newFieldsAreAddedNullableAtTheEndUnderPolicy() {
    RowType current = row(field(0, "id", DataTypes.INT().notNull()));
    Schema incoming =
        SchemaBuilder.struct()
            .field("extra", Schema.INT64_SCHEMA.schema())
            .field("id", Schema.INT32_SCHEMA)
            .field("note", SchemaBuilder.string().defaultValue("n/a").build())
            .field("opt", Schema.OPTIONAL_BOOLEAN_SCHEMA)
            .build();

    // "extra" is required without default: refused by default
    assertThatThrownBy(
            () -> planner.plan(TABLE, current, List.of("id"), incoming, EvolutionPolicy.defaults()))
        .isInstanceOf(SchemaEvolutionException.class)
        .hasMessageContaining("'extra'")
        .hasMessageContaining("<none> -> BIGINT NOT NULL")
        .hasMessageContaining(EvolutionPolicy.ADD_REQUIRED_COLUMN);

    EvolutionPlan plan =
        planner.plan(
            TABLE,
            current,
            List.of("id"),
            incoming,
            EvolutionPolicy.from(Map.of(EvolutionPolicy.ADD_REQUIRED_COLUMN, "APPLY")));
    assertThat(plan.steps())
        .containsExactly(
            new SchemaChangeStep.AddColumn("extra", DataTypes.BIGINT()),
            new SchemaChangeStep.AddColumn("note", DataTypes.STRING()),
            new SchemaChangeStep.AddColumn("opt", DataTypes.BOOLEAN()));
    assertThat(plan.target().getFieldNames()).containsExactly("id", "extra", "note", "opt");
    assertThat(plan.target().getFields()).extracting(DataField::id).containsExactly(0, 1, 2, 3);
    assertThat(plan.target().getFields().subList(1, 4))
        .allSatisfy(f -> assertThat(f.type().isNullable()).isTrue());

    EvolutionPlan ignored =
        planner.plan(
            TABLE,
            current,
            List.of("id"),
            incoming,
            EvolutionPolicy.from(
                Map.of(
                    EvolutionPolicy.ADD_COLUMN,
                    "IGNORE",
                    EvolutionPolicy.ADD_REQUIRED_COLUMN,
                    "IGNORE")));
    assertThat(ignored.steps()).isEmpty();
    assertThat(ignored.fieldMapping().droppedFields()).containsExactly("extra", "note", "opt");

    assertThatThrownBy(
            () ->
                planner.plan(
                    TABLE,
                    current,
                    List.of("id"),
                    incoming,
                    EvolutionPolicy.from(
                        Map.of(
                            EvolutionPolicy.ADD_COLUMN,
                            "FAIL",
                            EvolutionPolicy.ADD_REQUIRED_COLUMN,
                            "APPLY"))))
        .hasMessageContaining("'note'")
        .hasMessageContaining(EvolutionPolicy.ADD_COLUMN + "'");
  }

  @Test
  void missingColumnsAreKeptNeverDropped() {
    RowType current =
        row(
            field(0, "id", DataTypes.INT().notNull()),
            field(1, "gone", DataTypes.STRING().notNull()),
            field(2, "gone_too", DataTypes.STRING()),
            field(3, "_changelake_seq", DataTypes.BIGINT().notNull()));
    Schema incoming = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();

    EvolutionPlan apply =
        planner.plan(TABLE, current, List.of("id"), incoming, EvolutionPolicy.defaults());
    assertThat(apply.steps())
        .containsExactly(new SchemaChangeStep.RelaxNotNull("gone", DataTypes.STRING().notNull()));
    assertThat(apply.target().getFieldNames())
        .containsExactly("id", "gone", "gone_too", "_changelake_seq");

    EvolutionPlan ignore =
        planner.plan(
            TABLE,
            current,
            List.of("id"),
            incoming,
            EvolutionPolicy.from(Map.of(EvolutionPolicy.MISSING_COLUMN, "IGNORE")));
    assertThat(ignore.steps()).isEmpty();
    assertThat(ignore.ignored()).hasSize(2);

    assertThatThrownBy(
            () ->
                planner.plan(
                    TABLE,
                    current,
                    List.of("id"),
                    incoming,
                    EvolutionPolicy.from(Map.of(EvolutionPolicy.MISSING_COLUMN, "FAIL"))))
        .hasMessageContaining("'gone'")
        .hasMessageContaining("STRING NOT NULL -> <none>")
        .hasMessageContaining(EvolutionPolicy.MISSING_COLUMN);
  }

  @Test
  void primaryKeyChangesAreAlwaysRefused() {
    RowType current =
        row(field(0, "id", DataTypes.INT().notNull()), field(1, "col", DataTypes.STRING()));
    EvolutionPolicy anything =
        EvolutionPolicy.from(Map.of(EvolutionPolicy.INCOMPATIBLE_TYPE, "LENIENT"));

    // widening a key column would move keys to other buckets
    Schema widerKey =
        SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("col", Schema.STRING_SCHEMA)
            .build();
    assertThatThrownBy(() -> planner.plan(TABLE, current, List.of("id"), widerKey, anything))
        .hasMessageContaining("'id'")
        .hasMessageContaining("INT NOT NULL -> BIGINT NOT NULL")
        .hasMessageContaining("Primary-key");
    Schema stringKey =
        SchemaBuilder.struct()
            .field("id", Schema.STRING_SCHEMA)
            .field("col", Schema.STRING_SCHEMA)
            .build();
    assertThatThrownBy(() -> planner.plan(TABLE, current, List.of("id"), stringKey, anything))
        .hasMessageContaining("Primary-key");
    Schema noKey = SchemaBuilder.struct().field("col", Schema.STRING_SCHEMA).build();
    assertThatThrownBy(() -> planner.plan(TABLE, current, List.of("id"), noKey, anything))
        .hasMessageContaining("primary-key column");
    Schema otherKey = SchemaBuilder.struct().field("col", Schema.STRING_SCHEMA).build();
    assertThatThrownBy(
            () -> planner.plan(TABLE, current, List.of("id"), widerKey, otherKey, anything))
        .hasMessageContaining("[col]")
        .hasMessageContaining("[id]");
    // an optional key field never relaxes the key column
    Schema optionalKey =
        SchemaBuilder.struct()
            .field("id", Schema.OPTIONAL_INT32_SCHEMA)
            .field("col", Schema.STRING_SCHEMA)
            .build();
    assertThat(planner.plan(TABLE, current, List.of("id"), optionalKey, anything).isEmpty())
        .isTrue();
  }

  @Test
  void stepsAreSatisfiedByTheirTarget() {
    EvolutionPlan plan = plan(DataTypes.INT().notNull(), Schema.OPTIONAL_INT64_SCHEMA, Map.of());
    assertThat(plan.steps()).hasSize(2);
    assertThat(plan.steps()).allSatisfy(s -> assertThat(s.isSatisfiedBy(plan.target())).isTrue());
    assertThat(plan.steps()).allSatisfy(s -> assertThat(s.isSatisfiedBy(plan.current())).isFalse());
  }

  private EvolutionPlan plan(DataType column, Schema incoming, Map<String, String> policy) {
    RowType current = row(field(0, "id", DataTypes.INT().notNull()), field(1, "col", column));
    return planner.plan(
        TABLE, current, List.of("id"), record(incoming), EvolutionPolicy.from(policy));
  }

  private static Schema record(Schema col) {
    return SchemaBuilder.struct()
        .name("db.t.Value")
        .field("id", Schema.INT32_SCHEMA)
        .field("col", col)
        .build();
  }

  private static RowType row(DataField... fields) {
    return new RowType(List.of(fields));
  }

  private static DataField field(int id, String name, DataType type) {
    return new DataField(id, name, type);
  }

  private static Schema decimal(int scale, int precision) {
    return Decimal.builder(scale)
        .parameter("connect.decimal.precision", String.valueOf(precision))
        .optional()
        .build();
  }

  private static Arguments widen(String description, DataType column, Schema in, DataType to) {
    return Arguments.of(description, column, in, to);
  }
}
