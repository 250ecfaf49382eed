package io.changelake.lsm.testing;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;

/**
 * Reads the current state of a Paimon table the way an engine would (latest snapshot, merged), as
 * plain Java values: strings, {@link BigDecimal}, {@link LocalDate}, {@link LocalTime}, {@code
 * LocalDateTime}/{@code Instant}, byte arrays, lists and maps. Opens a fresh, uncached catalog per
 * read so schema changes are always seen. The one place tests scan a table: {@link LakeRows} reads
 * through {@link #scan} too, with its own (positional) view of the values.
 */
public final class LakeTableReader {
  private LakeTableReader() {}

  /** Catalog options for a local file-system warehouse. */
  public static Map<String, String> fileWarehouse(java.nio.file.Path warehouse) {
    return Map.of("warehouse", warehouse.toUri().toString());
  }

  /** Rows of {@code database.table}, column name -> value; internal columns included. */
  public static List<Map<String, Object>> read(
      Map<String, String> catalogOptions, String database, String table) {
    Map<String, String> options = new HashMap<>(catalogOptions);
    options.put("cache-enabled", "false");
    try (Catalog catalog =
        CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(options)))) {
      Table t = catalog.getTable(Identifier.create(database, table));
      return readTable(t);
    } catch (Catalog.TableNotExistException e) {
      throw new TableMissing(database + "." + table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read lake table " + database + "." + table, e);
    }
  }

  /**
   * The schema of a Paimon table as an engine sees it: primary key and every column as {@code name
   * TYPE} (Paimon's SQL type string, nullability included), in column order.
   */
  public record Schema(List<String> primaryKeys, List<String> columns) {}

  /** The current {@link Schema} of {@code database.table}. */
  public static Schema schema(Map<String, String> catalogOptions, String database, String table) {
    Map<String, String> options = new HashMap<>(catalogOptions);
    options.put("cache-enabled", "false");
    try (Catalog catalog =
        CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(options)))) {
      Table t = catalog.getTable(Identifier.create(database, table));
      List<String> columns = new ArrayList<>();
      for (DataField f : t.rowType().getFields()) {
        columns.add(f.name() + " " + f.type().asSQLString());
      }
      return new Schema(t.primaryKeys(), columns);
    } catch (Catalog.TableNotExistException e) {
      throw new TableMissing(database + "." + table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read lake table " + database + "." + table, e);
    }
  }

  /** The current row type of {@code database.table} (fresh catalog: schema changes are seen). */
  public static RowType rowType(Map<String, String> catalogOptions, String database, String table) {
    Map<String, String> options = new HashMap<>(catalogOptions);
    options.put("cache-enabled", "false");
    try (Catalog catalog =
        CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(options)))) {
      return catalog.getTable(Identifier.create(database, table)).rowType();
    } catch (Catalog.TableNotExistException e) {
      throw new TableMissing(database + "." + table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read lake table " + database + "." + table, e);
    }
  }

  /** Rows of an already opened table. */
  public static List<Map<String, Object>> readTable(Table t) throws java.io.IOException {
    RowType rowType = t.rowType();
    List<InternalRow.FieldGetter> getters = new ArrayList<>();
    for (int i = 0; i < rowType.getFieldCount(); i++) {
      getters.add(InternalRow.createFieldGetter(rowType.getTypeAt(i), i));
    }
    return scan(
        t,
        row -> {
          Map<String, Object> values = new LinkedHashMap<>();
          for (int i = 0; i < rowType.getFieldCount(); i++) {
            DataField f = rowType.getFields().get(i);
            values.put(f.name(), toJava(f.type(), getters.get(i).getFieldOrNull(row)));
          }
          return values;
        });
  }

  /**
   * Every current row of {@code t} (latest snapshot, merged by primary key) through {@code
   * convert}, in file order. The converter must copy what it keeps: the reader reuses rows.
   */
  public static <T> List<T> scan(Table t, Function<InternalRow, T> convert)
      throws java.io.IOException {
    ReadBuilder rb = t.newReadBuilder();
    List<T> rows = new ArrayList<>();
    try (RecordReader<InternalRow> reader =
        rb.newRead().createReader(rb.newScan().plan().splits())) {
      reader.forEachRemaining(row -> rows.add(convert.apply(row)));
    }
    return rows;
  }

  /** Signals that the table does not exist (yet). */
  public static final class TableMissing extends RuntimeException {
    public TableMissing(String name) {
      super("lake table " + name + " does not exist");
    }
  }

  /** A Paimon internal value of {@code type} as the plain Java value an engine shows. */
  public static Object toJava(DataType type, Object v) {
    if (v == null) {
      return null;
    }
    DataTypeRoot root = type.getTypeRoot();
    switch (root) {
      case CHAR:
      case VARCHAR:
        return ((BinaryString) v).toString();
      case DECIMAL:
        return ((Decimal) v).toBigDecimal();
      case DATE:
        return LocalDate.ofEpochDay((Integer) v);
      case TIME_WITHOUT_TIME_ZONE:
        return LocalTime.ofNanoOfDay(((Integer) v) * 1_000_000L);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return ((Timestamp) v).toLocalDateTime();
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return ((Timestamp) v).toInstant();
      case ARRAY:
        {
          DataType element = ((ArrayType) type).getElementType();
          InternalArray array = (InternalArray) v;
          InternalArray.ElementGetter getter = InternalArray.createElementGetter(element);
          List<Object> list = new ArrayList<>();
          for (int i = 0; i < array.size(); i++) {
            list.add(toJava(element, getter.getElementOrNull(array, i)));
          }
          return list;
        }
      case MAP:
        {
          MapType mt = (MapType) type;
          InternalMap map = (InternalMap) v;
          List<?> keys = (List<?>) toJava(new ArrayType(mt.getKeyType()), map.keyArray());
          List<?> values = (List<?>) toJava(new ArrayType(mt.getValueType()), map.valueArray());
          Map<Object, Object> out = new LinkedHashMap<>();
          for (int i = 0; i < keys.size(); i++) {
            out.put(keys.get(i), values.get(i));
          }
          return out;
        }
      case ROW:
        {
          RowType rt = (RowType) type;
          InternalRow r = (InternalRow) v;
          Map<String, Object> out = new LinkedHashMap<>();
          for (int i = 0; i < rt.getFieldCount(); i++) {
            DataType ft = rt.getTypeAt(i);
            out.put(
                rt.getFields().get(i).name(),
                toJava(ft, InternalRow.createFieldGetter(ft, i).getFieldOrNull(r)));
          }
          return out;
        }
      default:
        return v;
    }
  }
}
