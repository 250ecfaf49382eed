package io.changelake.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.BinaryType;
import org.apache.paimon.types.CharType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimeType;
import org.apache.paimon.types.TimestampType;
import org.apache.paimon.types.VarBinaryType;
import org.apache.paimon.types.VarCharType;

/**
 * Which Paimon types can hold which: the lossless widening rules shared by the evolution planner
 * (what a column may become) and {@link RowConverter} (what values it may write into a column).
 *
 * <p>Widening: TINYINT -> SMALLINT -> INT -> BIGINT; an integer to a DECIMAL with enough integer
 * digits (3, 5, 10, 19); DECIMAL growth keeping integer digits and scale; FLOAT -> DOUBLE;
 * CHAR/VARCHAR/BINARY/VARBINARY length growth (and CHAR -> VARCHAR, BINARY -> VARBINARY); TIME,
 * TIMESTAMP and TIMESTAMP_LTZ precision growth; inside ARRAY, MAP and ROW the same recursively, a
 * ROW also gaining nullable fields at its end and nested fields becoming nullable.
 */
public final class TypeRules {

  private TypeRules() {}

  /**
   * The narrowest type able to hold every value of {@code table} and of {@code incoming} by the
   * widening rules, with {@code table}'s nullability; empty when the two are incompatible. Equal to
   * {@code table} (see {@link #sameType}) when incoming values already fit.
   */
  public static Optional<DataType> join(DataType table, DataType incoming) {
    DataType joined = joinIgnoringNullability(table, incoming);
    return Optional.ofNullable(joined == null ? null : joined.copy(table.isNullable()));
  }

  /**
   * True when values of {@code from} can be written into {@code to}: always when {@code to} is
   * wider, after a range/precision check per value when it is narrower.
   */
  public static boolean convertible(DataType from, DataType to) {
    return joinIgnoringNullability(to, from) != null;
  }

  /**
   * True when {@code incoming} is an unbounded STRING or BYTES (a Connect string or bytes, whose
   * length is unknown, not unlimited) and {@code column} a bounded character or binary type: the
   * column is kept and each value's length is checked when written.
   */
  public static boolean isUnknownLengthInto(DataType incoming, DataType column) {
    if (incoming.is(DataTypeRoot.VARCHAR) && length(incoming) == VarCharType.MAX_LENGTH) {
      return isCharacter(column);
    }
    if (incoming.is(DataTypeRoot.VARBINARY) && length(incoming) == VarBinaryType.MAX_LENGTH) {
      return isBinary(column);
    }
    return false;
  }

  /** Structural equality ignoring field ids and the top-level nullability. */
  public static boolean sameType(DataType a, DataType b) {
    return a.copy(true).equalsIgnoreFieldId(b.copy(true));
  }

  /** Structural equality ignoring field ids and nullability at every level. */
  public static boolean sameRepresentation(DataType a, DataType b) {
    if (a.getTypeRoot() != b.getTypeRoot()) {
      return false;
    }
    return switch (a.getTypeRoot()) {
      case ARRAY ->
          sameRepresentation(((ArrayType) a).getElementType(), ((ArrayType) b).getElementType());
      case MAP ->
          sameRepresentation(((MapType) a).getKeyType(), ((MapType) b).getKeyType())
              && sameRepresentation(((MapType) a).getValueType(), ((MapType) b).getValueType());
      case ROW -> {
        List<DataField> fa = ((RowType) a).getFields();
        List<DataField> fb = ((RowType) b).getFields();
        if (fa.size() != fb.size()) {
          yield false;
        }
        for (int i = 0; i < fa.size(); i++) {
          if (!fa.get(i).name().equals(fb.get(i).name())
              || !sameRepresentation(fa.get(i).type(), fb.get(i).type())) {
            yield false;
          }
        }
        yield true;
      }
      default -> a.copy(true).equals(b.copy(true));
    };
  }

  /** Integer digits of an exact numeric type (integers as decimals), or -1. */
  static int integerDigits(DataType type) {
    return switch (type.getTypeRoot()) {
      case TINYINT -> 3;
      case SMALLINT -> 5;
      case INTEGER -> 10;
      case BIGINT -> 19;
      case DECIMAL -> ((DecimalType) type).getPrecision() - ((DecimalType) type).getScale();
      default -> -1;
    };
  }

  /** Decimal digits every value of which an integer type holds (99 fits TINYINT, 999 not). */
  private static int exactDigits(DataType integer) {
    return switch (integer.getTypeRoot()) {
      case TINYINT -> 2;
      case SMALLINT -> 4;
      case INTEGER -> 9;
      default -> 18;
    };
  }

  static int scale(DataType type) {
    return type instanceof DecimalType d ? d.getScale() : 0;
  }

  static boolean isInteger(DataType type) {
    return type.isAnyOf(
        DataTypeRoot.TINYINT, DataTypeRoot.SMALLINT, DataTypeRoot.INTEGER, DataTypeRoot.BIGINT);
  }

  private static DataType joinIgnoringNullability(DataType t, DataType i) {
    DataTypeRoot tr = t.getTypeRoot();
    DataTypeRoot ir = i.getTypeRoot();
    if (isInteger(t) && isInteger(i)) {
      return integerDigits(t) >= integerDigits(i) ? t : i;
    }
    if (isInteger(t)
        && i instanceof DecimalType decimal
        && decimal.getScale() == 0
        && decimal.getPrecision() <= exactDigits(t)) {
      // e.g. NUMERIC(10,0) values always fit a BIGINT column: nothing to widen
      return t;
    }
    if (integerDigits(t) >= 0 && integerDigits(i) >= 0) {
      // at least one side is a decimal
      int integerDigits = Math.max(integerDigits(t), integerDigits(i));
      int scale = Math.max(scale(t), scale(i));
      if (integerDigits + scale > DecimalType.MAX_PRECISION) {
        return null;
      }
      DecimalType joined = new DecimalType(Math.max(integerDigits + scale, 1), scale);
      return tr == DataTypeRoot.DECIMAL && joined.equals(t.copy(true)) ? t : joined;
    }
    if (t.isAnyOf(DataTypeRoot.FLOAT, DataTypeRoot.DOUBLE)
        && i.isAnyOf(DataTypeRoot.FLOAT, DataTypeRoot.DOUBLE)) {
      return tr == DataTypeRoot.DOUBLE ? t : i;
    }
    if (isCharacter(t) && isCharacter(i)) {
      int length = Math.max(length(t), length(i));
      if (tr == DataTypeRoot.CHAR && ir == DataTypeRoot.CHAR) {
        return length == length(t) ? t : new CharType(length);
      }
      return tr == DataTypeRoot.VARCHAR && length == length(t) ? t : new VarCharType(length);
    }
    if (isBinary(t) && isBinary(i)) {
      int length = Math.max(length(t), length(i));
      if (tr == DataTypeRoot.BINARY && ir == DataTypeRoot.BINARY) {
        return length == length(t) ? t : new BinaryType(length);
      }
      return tr == DataTypeRoot.VARBINARY && length == length(t) ? t : new VarBinaryType(length);
    }
    if (tr != ir) {
      return null;
    }
    return switch (tr) {
      case TIMESTAMP_WITHOUT_TIME_ZONE ->
          precision(t) >= precision(i) ? t : new TimestampType(precision(i));
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
          precision(t) >= precision(i) ? t : new LocalZonedTimestampType(precision(i));
      case TIME_WITHOUT_TIME_ZONE -> precision(t) >= precision(i) ? t : new TimeType(precision(i));
      case ARRAY -> {
        DataType element =
            joinNested(((ArrayType) t).getElementType(), ((ArrayType) i).getElementType());
        yield element == null ? null : new ArrayType(element);
      }
      case MAP -> {
        DataType key = joinNested(((MapType) t).getKeyType(), ((MapType) i).getKeyType());
        DataType value = joinNested(((MapType) t).getValueType(), ((MapType) i).getValueType());
        yield key == null || value == null ? null : new MapType(key.notNull(), value);
      }
      case ROW -> joinRow((RowType) t, (RowType) i);
      default -> t.copy(true).equals(i.copy(true)) ? t : null;
    };
  }

  /** Join inside a container: a nested position is nullable if either side is. */
  private static DataType joinNested(DataType t, DataType i) {
    DataType joined = joinIgnoringNullability(t, i);
    return joined == null ? null : joined.copy(t.isNullable() || i.isNullable());
  }

  private static RowType joinRow(RowType t, RowType i) {
    List<DataField> fields = new ArrayList<>();
    for (DataField field : t.getFields()) {
      int index = i.getFieldIndex(field.name());
      DataType type;
      if (index < 0) {
        type = field.type().nullable();
      } else {
        type = joinNested(field.type(), i.getFields().get(index).type());
        if (type == null) {
          return null;
        }
      }
      fields.add(new DataField(field.id(), field.name(), type, field.description()));
    }
    int nextId = t.getFields().stream().mapToInt(DataField::id).max().orElse(-1) + 1;
    for (DataField field : i.getFields()) {
      if (t.getFieldIndex(field.name()) < 0) {
        fields.add(new DataField(nextId++, field.name(), field.type().nullable()));
      }
    }
    return new RowType(fields);
  }

  private static boolean isCharacter(DataType type) {
    return type.isAnyOf(DataTypeRoot.CHAR, DataTypeRoot.VARCHAR);
  }

  private static boolean isBinary(DataType type) {
    return type.isAnyOf(DataTypeRoot.BINARY, DataTypeRoot.VARBINARY);
  }

  static int length(DataType type) {
    return switch (type.getTypeRoot()) {
      case CHAR -> ((CharType) type).getLength();
      case VARCHAR -> ((VarCharType) type).getLength();
      case BINARY -> ((BinaryType) type).getLength();
      case VARBINARY -> ((VarBinaryType) type).getLength();
      default -> throw new IllegalArgumentException("No length: " + type);
    };
  }

  static int precision(DataType type) {
    return switch (type.getTypeRoot()) {
      case TIMESTAMP_WITHOUT_TIME_ZONE -> ((TimestampType) type).getPrecision();
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> ((LocalZonedTimestampType) type).getPrecision();
      case TIME_WITHOUT_TIME_ZONE -> ((TimeType) type).getPrecision();
      case DECIMAL -> ((DecimalType) type).getPrecision();
      default -> throw new IllegalArgumentException("No precision: " + type);
    };
  }
}
