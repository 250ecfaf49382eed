package io.changelake.e2e.compare;

import io.changelake.e2e.compare.DbTableReader.Column;
import io.changelake.lsm.testing.LakeTableReader;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.ResolverStyle;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.postgresql.util.PGInterval;

/**
 * THE one place where values from PostgreSQL (JDBC) and from a Paimon table — or from a mirror
 * PostgreSQL table some sink created — are brought into one comparable form, decided by the
 * database column's type.
 *
 * <p><b>Lake values are compared by type.</b> {@link #lake} accepts only the Java class {@link
 * LakeTableReader} produces for the Paimon type {@link ExpectedLakeTypes} expects for the column
 * ({@code Integer} for INT, {@code BigDecimal} for DECIMAL, {@code Instant} for TIMESTAMP_LTZ,
 * ...); any other value (an integer read as text, a numeric read as a double, a naive timestamp for
 * a {@code timestamptz}) is unreadable and shows up as a difference. Together with the schema check
 * of {@link TableComparison} (the lake column's type and nullability) this means a lake value
 * passes exactly when it has the expected type and the database's value:
 *
 * <table>
 *   <tr><th>PostgreSQL type</th><th>lake type and Java class</th><th>compared as</th></tr>
 *   <tr><td>smallint, integer, bigint</td><td>SMALLINT Short, INT Integer, BIGINT Long</td>
 *       <td>the number</td></tr>
 *   <tr><td>numeric(p,s)</td><td>DECIMAL(p,s) BigDecimal</td><td>BigDecimal including its scale
 *       (1.50 is not 1.5)</td></tr>
 *   <tr><td>numeric</td><td>STRING</td><td>plain decimal text, exactly the database value's
 *       without trailing zeros (see below)</td></tr>
 *   <tr><td>real / double precision</td><td>FLOAT Float / DOUBLE Double</td><td>{@code
 *       Float.equals}/{@code Double.equals} (bit patterns: NaN equals NaN, -0.0 is not 0.0)</td>
 *   </tr>
 *   <tr><td>text, varchar(n), char(n), enum, uuid, json, jsonb</td><td>STRING</td><td>the text,
 *       exactly (char(n) with PostgreSQL's padding, uuid as PostgreSQL prints it, json byte for
 *       byte)</td></tr>
 *   <tr><td>boolean, date</td><td>BOOLEAN Boolean, DATE LocalDate</td><td>the value</td></tr>
 *   <tr><td>time, time(4..6)</td><td>STRING</td><td>fixed-width {@code HH:mm:ss.ffffff} text,
 *       parsed strictly</td></tr>
 *   <tr><td>time(0..3)</td><td>TIME(3) LocalTime</td><td>the value</td></tr>
 *   <tr><td>timestamp</td><td>TIMESTAMP(p) LocalDateTime</td><td>the value (no instant)</td></tr>
 *   <tr><td>timestamptz</td><td>TIMESTAMP_LTZ(6) Instant</td><td>the instant (no naive
 *       value)</td></tr>
 *   <tr><td>interval</td><td>BIGINT Long</td><td>microseconds</td></tr>
 *   <tr><td>bytea</td><td>BYTES byte[]</td><td>the bytes</td></tr>
 *   <tr><td>arrays</td><td>ARRAY List</td><td>element by element, as above</td></tr>
 * </table>
 *
 * <p>The two leniencies left on the lake side, both where Debezium itself changes the value before
 * any sink sees it, each with a test in {@code harness.TableComparisonTest} showing it lets through
 * Debezium's value and nothing else:
 *
 * <ul>
 *   <li><b>interval</b> is not compared with its exact length but with Debezium's {@code
 *       MicroDuration} of it (a month is 365.25/12 days, double arithmetic, truncated, so long
 *       intervals may be 1 µs off the exact value): Debezium's default {@code
 *       interval.handling.mode=numeric} is that precise. The exact length (a month as 30 days), or
 *       Debezium's value 1 µs off, fails.
 *   <li><b>numeric without declared scale</b> is compared without the database value's trailing
 *       zeros: Debezium strips them (1.50 arrives as 1.5). The lake text must be exactly the
 *       stripped plain decimal; the text with its zeros ({@code 1.50}) or a DECIMAL column fails.
 * </ul>
 *
 * <p><b>Mirror tables</b> ({@link #mirror}): the mirror of scenario 9 ({@code MirroringTest}:
 * Debezium's JDBC sink creating PostgreSQL B's table from the lake's changelog topic) has column
 * types the JDBC sink chose, which are the lake's, not A's, wherever Paimon has no richer type:
 * {@code numeric} without scale, {@code time} with microseconds, {@code uuid}, {@code varchar(n)},
 * {@code json}/{@code jsonb} arrive in B as {@code text}, {@code interval} as {@code bigint}
 * microseconds. So mirror values (and the database values they are compared with) use the older,
 * lenient form: integers as long from any integral number, numerics as decimals without trailing
 * zeros from a decimal or its text, char(n) without trailing blanks, uuid lower case, time from ISO
 * text or microseconds, json as a parsed tree, timestamptz also from a naive value read as UTC. It
 * is used for mirrors only, never for a lake table.
 */
public final class Normalizer {
  private static final double DAYS_PER_MONTH = 365.25 / 12;

  /** The sink's text form of a MicroTime ({@code HH:mm:ss.ffffff}), read strictly. */
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS", Locale.ROOT)
          .withResolverStyle(ResolverStyle.STRICT);

  private Normalizer() {}

  /** The comparable form of a database value (as {@link DbTableReader} reads it) of {@code c}. */
  public static Object database(Column c, Object value) {
    if (value == null) {
      return null;
    }
    if (c.pgType().startsWith("_")) {
      Column element = c.element();
      List<Object> out = new ArrayList<>();
      for (Object e : asCollection(value)) {
        out.add(database(element, e));
      }
      return out;
    }
    switch (c.pgType()) {
      case "int2":
      case "int4":
      case "int8":
      case "oid":
        // JDBC reads these as Integer or Long: exact
        return ((Number) value).longValue();
      case "numeric":
        // Debezium strips the trailing zeros of a numeric without declared scale (its
        // PostgresValueConverter, VariableScaleDecimal): 1.50 arrives as 1.5, and no sink can
        // restore them
        return hasScale(c) ? value : plainWithoutTrailingZeros((BigDecimal) value);
      case "timestamptz":
        return ((OffsetDateTime) value).toInstant();
      case "interval":
        return debeziumMicros((PGInterval) value);
      case "bytea":
        return HexFormat.of().formatHex((byte[]) value);
      case "uuid":
        return value.toString();
      default:
        // Float, Double, Boolean, String, LocalDate, LocalTime, LocalDateTime as read
        return value;
    }
  }

  /**
   * The comparable form of a lake value (as {@link LakeTableReader} reads it) of {@code c}: only
   * the Java class of the Paimon type {@link ExpectedLakeTypes} expects is accepted.
   *
   * @throws IllegalArgumentException for a value of any other class, naming both
   */
  public static Object lake(Column c, Object value) {
    if (value == null) {
      return null;
    }
    DataType expected =
        ExpectedLakeTypes.of(c.declaredType(), false)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no expected lake type for " + c.declaredType() + " in ExpectedLakeTypes"));
    Class<?> type = javaClass(expected.getTypeRoot());
    if (!type.isInstance(value)) {
      String text = value.toString();
      throw new IllegalArgumentException(
          "must read as "
              + expected.asSQLString()
              + " ("
              + type.getSimpleName()
              + "), the lake has "
              + value.getClass().getSimpleName()
              + " "
              + (text.length() > 40 ? text.substring(0, 40) + "…" : text));
    }
    if (c.pgType().startsWith("_")) {
      Column element = c.element();
      List<Object> out = new ArrayList<>();
      for (Object e : (List<?>) value) {
        out.add(lake(element, e));
      }
      return out;
    }
    switch (c.pgType()) {
      case "int2":
      case "int4":
      case "int8":
      case "oid":
        return ((Number) value).longValue();
      case "time":
        return value instanceof String s ? LocalTime.parse(s, MICRO_TIME) : value;
      case "bytea":
        return HexFormat.of().formatHex((byte[]) value);
      default:
        return value;
    }
  }

  private static String plainWithoutTrailingZeros(BigDecimal d) {
    return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
  }

  private static boolean hasScale(Column c) {
    return c.declaredType().startsWith("numeric(");
  }

  private static Class<?> javaClass(DataTypeRoot root) {
    return switch (root) {
      case TINYINT -> Byte.class;
      case SMALLINT -> Short.class;
      case INTEGER -> Integer.class;
      case BIGINT -> Long.class;
      case FLOAT -> Float.class;
      case DOUBLE -> Double.class;
      case DECIMAL -> BigDecimal.class;
      case BOOLEAN -> Boolean.class;
      case CHAR, VARCHAR -> String.class;
      case BINARY, VARBINARY -> byte[].class;
      case DATE -> LocalDate.class;
      case TIME_WITHOUT_TIME_ZONE -> LocalTime.class;
      case TIMESTAMP_WITHOUT_TIME_ZONE -> LocalDateTime.class;
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> Instant.class;
      case ARRAY -> List.class;
      case MAP -> Map.class;
      default -> throw new IllegalArgumentException("no Java class known for " + root);
    };
  }

  /**
   * The lenient comparable form for a mirror database table and the values it is compared with (see
   * the class comment): never used for lake tables.
   */
  public static Object mirror(Column c, Object value) {
    if (value == null) {
      return null;
    }
    String pgType = c.pgType();
    if (pgType.startsWith("_")) {
      Column element = c.element();
      List<Object> out = new ArrayList<>();
      for (Object e : asCollection(value)) {
        out.add(mirror(element, e));
      }
      return out;
    }
    switch (pgType) {
      case "int2":
      case "int4":
      case "int8":
      case "oid":
        return value instanceof Number n ? n.longValue() : Long.parseLong(value.toString());
      case "numeric":
        {
          BigDecimal d = value instanceof BigDecimal b ? b : new BigDecimal(value.toString());
          return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
        }
      case "float4":
        return value instanceof Number n ? n.floatValue() : Float.parseFloat(value.toString());
      case "float8":
        return value instanceof Number n ? n.doubleValue() : Double.parseDouble(value.toString());
      case "bool":
        return value instanceof Boolean b ? b : Boolean.parseBoolean(value.toString());
      case "bpchar":
        return value.toString().stripTrailing();
      case "uuid":
        return value.toString().toLowerCase(Locale.ROOT);
      case "date":
        return value instanceof LocalDate d ? d : LocalDate.parse(value.toString());
      case "time":
        if (value instanceof LocalTime t) {
          return t;
        }
        if (value instanceof Long micros) {
          return LocalTime.ofNanoOfDay(micros * 1000);
        }
        return LocalTime.parse(value.toString());
      case "timestamp":
        return value instanceof LocalDateTime t
            ? t
            : LocalDateTime.parse(value.toString().replace(' ', 'T'));
      case "timestamptz":
        if (value instanceof OffsetDateTime o) {
          return o.toInstant();
        }
        if (value instanceof LocalDateTime t) {
          return t.toInstant(ZoneOffset.UTC);
        }
        return OffsetDateTime.parse(value.toString(), DateTimeFormatter.ISO_OFFSET_DATE_TIME)
            .toInstant();
      case "interval":
        return value instanceof PGInterval i
            ? debeziumMicros(i)
            : value instanceof Number n ? n.longValue() : Long.parseLong(value.toString());
      case "json":
      case "jsonb":
        try {
          return new com.fasterxml.jackson.databind.ObjectMapper().readTree(value.toString());
        } catch (Exception e) {
          throw new IllegalArgumentException("not JSON: " + value, e);
        }
      case "bytea":
        return HexFormat.of().formatHex(bytes(value));
      default:
        return value instanceof byte[] b ? HexFormat.of().formatHex(b) : value.toString();
    }
  }

  /** Readable text of a normalised value for diffs. */
  public static String show(Object normalized) {
    if (normalized == null) {
      return "NULL";
    }
    String s = normalized.toString();
    if (s.length() > 120) {
      return s.substring(0, 60)
          + "…("
          + s.length()
          + " chars, hash "
          + s.hashCode()
          + ")…"
          + s.substring(s.length() - 30);
    }
    return normalized instanceof String ? "'" + s + "'" : s;
  }

  /**
   * Exactly Debezium's MicroDuration arithmetic (doubles, truncated): its numeric interval mode can
   * be a microsecond off for long intervals, and no sink can do better than it.
   */
  private static long debeziumMicros(PGInterval i) {
    double seconds =
        ((((i.getYears() * 12 + i.getMonths()) * DAYS_PER_MONTH + i.getDays()) * 24 + i.getHours())
                        * 60
                    + i.getMinutes())
                * 60
            + i.getSeconds();
    return (long) (seconds * 1_000_000d);
  }

  private static Collection<?> asCollection(Object value) {
    if (value instanceof Collection<?> c) {
      return c;
    }
    if (value instanceof Object[] a) {
      return java.util.Arrays.asList(a);
    }
    throw new IllegalArgumentException("not an array: " + value.getClass() + " " + value);
  }

  private static byte[] bytes(Object value) {
    if (value instanceof byte[] b) {
      return b;
    }
    if (value instanceof ByteBuffer bb) {
      byte[] b = new byte[bb.remaining()];
      bb.duplicate().get(b);
      return b;
    }
    throw new IllegalArgumentException("not bytes: " + value.getClass());
  }
}
