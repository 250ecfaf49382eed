package io.changelake.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.schema.evolution.LenientColumns;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;

class RowConverterTest {

  private static final Schema VALUE =
      SchemaBuilder.struct()
          .name("db.public.items.Value")
          .field("id", Schema.INT32_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
          .field("tags", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())
          .field("extra", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  private static final RowType TABLE =
      new RowType(
          List.of(
              new DataField(0, "id", DataTypes.BIGINT().notNull()),
              new DataField(1, "name", DataTypes.STRING()),
              new DataField(2, "blob", DataTypes.BYTES()),
              new DataField(3, "tags", DataTypes.ARRAY(DataTypes.STRING())),
              new DataField(4, "dropped_in_source", DataTypes.INT())));

  @Test
  void mapsByNameDropsUnknownFieldsAndReportsAbsentColumns() {
    RowConverter converter = RowConverter.compile(VALUE, TABLE);
    Struct value =
        new Struct(VALUE)
            .put("id", 7)
            .put("name", "seven")
            .put("blob", new byte[] {7})
            .put("tags", List.of("a", "b"))
            .put("extra", "not in the table");

    ConvertedRow converted = converter.convert(value, RowKind.UPDATE_AFTER);

    GenericRow row = converted.row();
    assertThat(row.getRowKind()).isEqualTo(RowKind.UPDATE_AFTER);
    assertThat(row.getFieldCount()).isEqualTo(5);
    assertThat(row.getLong(0)).isEqualTo(7L);
    assertThat(row.getString(1).toString()).isEqualTo("seven");
    assertThat(row.getBinary(2)).containsExactly(7);
    assertThat(row.getArray(3).getString(1).toString()).isEqualTo("b");
    assertThat(row.isNullAt(4)).isTrue();
    assertThat(converted.absent()).isEqualTo(bits(4));
    assertThat(converted.unavailable()).isEqualTo(new BitSet());
    assertThat(converted.keepStored()).isEqualTo(bits(4));
    assertThat(converter.presentColumns()).isEqualTo(bits(0, 1, 2, 3));
  }

  @Test
  void debeziumUnavailablePlaceholderIsReportedNotWritten() {
    RowConverter converter = RowConverter.compile(VALUE, TABLE);
    String placeholder = ConversionOptions.DEBEZIUM_UNAVAILABLE_VALUE;
    Struct value =
        new Struct(VALUE)
            .put("id", 1)
            .put("name", placeholder)
            .put("blob", placeholder.getBytes(StandardCharsets.UTF_8))
            .put("tags", List.of(placeholder));

    ConvertedRow converted = converter.convert(value, RowKind.UPDATE_AFTER);

    assertThat(converted.unavailable()).isEqualTo(bits(1, 2, 3));
    assertThat(converted.row().isNullAt(1)).isTrue();
    assertThat(converted.row().isNullAt(2)).isTrue();
    assertThat(converted.row().isNullAt(3)).isTrue();
    assertThat(converted.keepStored()).isEqualTo(bits(1, 2, 3, 4));
    assertThat(converted.isComplete()).isFalse();
  }

  @Test
  void placeholderIsConfigurableAndCanBeTurnedOff() {
    Struct value = new Struct(VALUE).put("id", 1).put("name", "??");

    ConvertedRow custom =
        RowConverter.compile(VALUE, TABLE, new ConversionOptions("??"))
            .convert(value, RowKind.INSERT);
    assertThat(custom.unavailable()).isEqualTo(bits(1));

    Struct debezium =
        new Struct(VALUE).put("id", 1).put("name", ConversionOptions.DEBEZIUM_UNAVAILABLE_VALUE);
    ConvertedRow off =
        RowConverter.compile(VALUE, TABLE, new ConversionOptions(null))
            .convert(debezium, RowKind.INSERT);
    assertThat(off.unavailable()).isEqualTo(new BitSet());
    assertThat(off.row().getString(1).toString())
        .isEqualTo(ConversionOptions.DEBEZIUM_UNAVAILABLE_VALUE);
  }

  @Test
  void aNullStaysNullEvenWhenTheSchemaHasADefault() {
    // Debezium puts the column DEFAULT into the schema; an explicit NULL in the row must stay NULL
    Schema withDefault =
        SchemaBuilder.struct()
            .field("id", Schema.INT32_SCHEMA)
            .field("status", SchemaBuilder.string().optional().defaultValue("new").build())
            .build();
    RowType table =
        RowType.of(
            new org.apache.paimon.types.DataType[] {DataTypes.INT().notNull(), DataTypes.STRING()},
            new String[] {"id", "status"});

    GenericRow row =
        RowConverter.compile(withDefault, table)
            .convert(new Struct(withDefault).put("id", 1), RowKind.INSERT)
            .row();

    assertThat(row.isNullAt(1)).isTrue();
  }

  @Test
  void nullIntoNotNullColumnNamesFieldSchemaAndType() {
    Schema optionalId = SchemaBuilder.struct().field("id", Schema.OPTIONAL_INT64_SCHEMA).build();
    RowType table =
        RowType.of(
            new org.apache.paimon.types.DataType[] {DataTypes.BIGINT().notNull()},
            new String[] {"id"});

    assertThatThrownBy(
            () ->
                RowConverter.compile(optionalId, table)
                    .convert(new Struct(optionalId), RowKind.INSERT))
        .isInstanceOf(ValueConversionException.class)
        .hasMessageContaining("'id'")
        .hasMessageContaining("INT64 (optional)")
        .hasMessageContaining("BIGINT NOT NULL")
        .satisfies(
            e -> {
              ValueConversionException v = (ValueConversionException) e;
              assertThat(v.field()).isEqualTo("id");
              assertThat(v.targetType()).isEqualTo(DataTypes.BIGINT().notNull());
              assertThat(v.connectSchema()).isEqualTo(Schema.OPTIONAL_INT64_SCHEMA);
            });
  }

  @Test
  void incompatibleFieldGoesToItsLenientColumnWhenTheTableHasOne() {
    Schema schema =
        SchemaBuilder.struct()
            .field("id", Schema.INT32_SCHEMA)
            .field("price", Schema.STRING_SCHEMA)
            .build();
    String lenient = LenientColumns.name("price", DataTypes.STRING());
    RowType table =
        new RowType(
            List.of(
                new DataField(0, "id", DataTypes.INT().notNull()),
                new DataField(1, "price", DataTypes.DECIMAL(10, 2)),
                new DataField(2, lenient, DataTypes.STRING())));

    RowConverter converter = RowConverter.compile(schema, table);
    GenericRow row =
        converter
            .convert(new Struct(schema).put("id", 1).put("price", "12.50 EUR"), RowKind.INSERT)
            .row();

    assertThat(lenient).isEqualTo("price__string");
    assertThat(row.isNullAt(1)).isTrue();
    assertThat(row.getString(2)).isEqualTo(BinaryString.fromString("12.50 EUR"));
  }

  @Test
  void incompatibleFieldWithoutLenientColumnIsRefusedAtCompileTime() {
    Schema schema = SchemaBuilder.struct().field("price", Schema.STRING_SCHEMA).build();
    RowType table =
        RowType.of(
            new org.apache.paimon.types.DataType[] {DataTypes.DECIMAL(10, 2)},
            new String[] {"price"});

    assertThatThrownBy(() -> RowConverter.compile(schema, table))
        .isInstanceOf(ValueConversionException.class)
        .hasMessageContaining("'price'")
        .hasMessageContaining("DECIMAL(10, 2)")
        .hasMessageContaining("schema.evolution.incompatible-type");
  }

  @Test
  void explicitMappingDropsIgnoredFields() {
    Schema schema =
        SchemaBuilder.struct()
            .field("id", Schema.INT32_SCHEMA)
            .field("price", Schema.STRING_SCHEMA)
            .build();
    RowType table =
        RowType.of(
            new org.apache.paimon.types.DataType[] {
              DataTypes.INT().notNull(), DataTypes.DECIMAL(10, 2)
            },
            new String[] {"id", "price"});
    FieldMapping mapping = new FieldMapping(Map.of("id", "id"), Set.of("price"));

    ConvertedRow converted =
        RowConverter.compile(schema, table, mapping, ConversionOptions.defaults())
            .convert(new Struct(schema).put("id", 3).put("price", "n/a"), RowKind.INSERT);

    assertThat(converted.row().getInt(0)).isEqualTo(3);
    assertThat(converted.absent()).isEqualTo(bits(1));
  }

  @Test
  void nestedStructGainsNullForNestedColumnsItLacks() {
    Schema address =
        SchemaBuilder.struct().optional().field("street", Schema.STRING_SCHEMA).build();
    Schema schema = SchemaBuilder.struct().field("address", address).build();
    RowType table =
        RowType.of(
            new org.apache.paimon.types.DataType[] {
              DataTypes.ROW(
                  DataTypes.FIELD(0, "street", DataTypes.STRING()),
                  DataTypes.FIELD(1, "zip", DataTypes.STRING()))
            },
            new String[] {"address"});

    GenericRow row =
        RowConverter.compile(schema, table)
            .convert(
                new Struct(schema).put("address", new Struct(address).put("street", "Main")),
                RowKind.INSERT)
            .row();

    assertThat(row.getRow(0, 2).getString(0).toString()).isEqualTo("Main");
    assertThat(row.getRow(0, 2).isNullAt(1)).isTrue();
  }

  private static BitSet bits(int... indexes) {
    BitSet set = new BitSet();
    for (int i : indexes) {
      set.set(i);
    }
    return set;
  }
}
