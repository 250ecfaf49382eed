package io.changelake.schema;

import java.util.BitSet;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * Converts Connect {@link Struct}s of one schema into Paimon rows of one table schema. Compile once
 * per (record schema, table row type) pair and reuse: all decisions are taken at compile time.
 *
 * <p>Target columns the record has no field for are null (and reported in {@link
 * ConvertedRow#absent()}); record fields the target does not know are dropped; values are converted
 * as documented in {@link TypeMapping}, also into a wider column type than their own (and, when the
 * policy ignored a widening, into a narrower one as long as the value fits — else {@link
 * ValueConversionException}).
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class RowConverter {

  private RowConverter() {}

  /** Compiles with name-based mapping ({@link FieldMapping#byName}) and Debezium's defaults. */
  public static RowConverter compile(Schema structSchema, RowType target) {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }

  /** Compiles with name-based mapping ({@link FieldMapping#byName}). */
  public static RowConverter compile(
      Schema structSchema, RowType target, ConversionOptions options) {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }

  /**
   * Compiles with an explicit mapping, e.g. {@link
   * io.changelake.schema.evolution.EvolutionPlan#fieldMapping()}.
   */
  public static RowConverter compile(
      Schema structSchema, RowType target, FieldMapping mapping, ConversionOptions options) {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }

  /**
   * Converts one record value.
   *
   * @param value a struct of the compiled schema
   * @param kind insert, update or delete
   * @throws ValueConversionException naming the field, its Connect schema and the target type
   */
  public ConvertedRow convert(Struct value, RowKind kind) {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }

  /** Target columns that some record field is written to. */
  public BitSet presentColumns() {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }

  /** The record schema this converter was compiled for. */
  public Schema schema() {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }

  /** The table row type this converter was compiled for. */
  public RowType target() {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }
}
