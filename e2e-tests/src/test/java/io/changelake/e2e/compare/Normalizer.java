package io.changelake.e2e.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.postgresql.util.PGInterval;

/**
 * THE one place where values from PostgreSQL (JDBC) and from a Paimon table — or from a mirror
 * PostgreSQL table some sink created — are brought into one comparable form. The PostgreSQL column
 * type of the reference table decides the form, for both sides, so a lake (or mirror) value is
 * accepted exactly when it means the same thing as the database value. Whatever type mapping the
 * sink chooses, these are the only leniencies:
 *
 * <table>
 *   <tr><th>PostgreSQL type</th><th>compared as</th><th>lake or mirror value accepted as</th></tr>
 *   <tr><td>smallint, integer, bigint</td><td>long</td><td>any integral number</td></tr>
 *   <tr><td>numeric, numeric(p,s)</td><td>BigDecimal without trailing zeros (1.50 = 1.5)</td>
 *       <td>decimal, or its text</td></tr>
 *   <tr><td>real / double precision</td><td>float / double</td><td>any number</td></tr>
 *   <tr><td>text, varchar(n), enum, uuid</td><td>string (uuid lower case)</td><td>string</td></tr>
 *   <tr><td>char(n)</td><td>string without trailing blanks (PostgreSQL pads)</td><td>string</td></tr>
 *   <tr><td>boolean</td><td>boolean</td><td>boolean</td></tr>
 *   <tr><td>date</td><td>LocalDate</td><td>date, or days since epoch</td></tr>
 *   <tr><td>time</td><td>LocalTime (microseconds)</td><td>time, microseconds of the day (long),
 *       or ISO text ({@code 12:30:00.000001})</td></tr>
 *   <tr><td>timestamp</td><td>LocalDateTime (microseconds)</td><td>timestamp, or microseconds
 *       since epoch (long)</td></tr>
 *   <tr><td>timestamptz</td><td>Instant</td><td>instant (TIMESTAMP_LTZ), a timestamp read as UTC,
 *       or ISO-8601 text with offset</td></tr>
 *   <tr><td>interval</td><td>microseconds computed as Debezium's MicroDuration does (a month is
 *       365.25/12 days; double arithmetic, truncated, so long intervals may be 1 µs off the exact
 *       value: Debezium's default interval.handling.mode=numeric is that precise)</td>
 *       <td>number, or ISO-8601 duration text</td></tr>
 *   <tr><td>json, jsonb</td><td>parsed JSON tree (key order and spacing ignored)</td>
 *       <td>JSON text</td></tr>
 *   <tr><td>bytea</td><td>hex string</td><td>bytes</td></tr>
 *   <tr><td>arrays</td><td>list of the element form</td><td>list</td></tr>
 * </table>
 *
 * <p>The mirror of scenario 9 ({@code MirroringTest}: Debezium's JDBC sink creating PostgreSQL B's
 * table from the lake's changelog topic) reads its values with its own column types, which are the
 * lake's, not A's, wherever Paimon has no richer type: {@code numeric} without scale, {@code time}
 * with microseconds, {@code uuid}, {@code varchar(n)}, {@code json}/{@code jsonb} arrive in B as
 * {@code text} (Paimon {@code STRING}, published as plain strings), {@code interval} as {@code
 * bigint} microseconds. The rows above already accept those forms (decimal text, ISO time text,
 * lower-case uuid text, JSON text, a number of microseconds); no leniency was added for the mirror.
 */
public final class Normalizer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final double DAYS_PER_MONTH = 365.25 / 12;

  private Normalizer() {}

  /**
   * The comparable form of {@code value} of a column whose PostgreSQL type is {@code pgType} (as in
   * {@code ResultSetMetaData.getColumnTypeName}: {@code int4}, {@code _text}, an enum's name).
   */
  public static Object normalize(String pgType, Object value) {
    if (value == null) {
      return null;
    }
    if (pgType.startsWith("_")) {
      String element = pgType.substring(1);
      List<Object> out = new ArrayList<>();
      for (Object e : asCollection(value)) {
        out.add(normalize(element, e));
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
        return decimal(value);
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
        return date(value);
      case "time":
        return time(value);
      case "timestamp":
        return timestamp(value);
      case "timestamptz":
        return instant(value);
      case "interval":
        return interval(value);
      case "json":
      case "jsonb":
        return json(value);
      case "bytea":
        return HexFormat.of().formatHex(bytes(value));
      default:
        // text, varchar, enums, and anything the sink stores as text
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

  private static Collection<?> asCollection(Object value) {
    if (value instanceof Collection<?> c) {
      return c;
    }
    if (value instanceof Object[] a) {
      return List.of(a);
    }
    if (value.getClass().isArray()) {
      int n = java.lang.reflect.Array.getLength(value);
      List<Object> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        out.add(java.lang.reflect.Array.get(value, i));
      }
      return out;
    }
    throw new IllegalArgumentException("not an array: " + value.getClass() + " " + value);
  }

  private static String decimal(Object value) {
    BigDecimal d =
        value instanceof BigDecimal b
            ? b
            : value instanceof Number n
                ? new BigDecimal(n.toString())
                : new BigDecimal(value.toString());
    return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
  }

  private static LocalDate date(Object value) {
    if (value instanceof LocalDate d) {
      return d;
    }
    if (value instanceof java.sql.Date d) {
      return d.toLocalDate();
    }
    if (value instanceof Number n) {
      return LocalDate.ofEpochDay(n.longValue());
    }
    return LocalDate.parse(value.toString());
  }

  private static LocalTime time(Object value) {
    if (value instanceof LocalTime t) {
      return t;
    }
    if (value instanceof Long micros) {
      return LocalTime.ofNanoOfDay(micros * 1000);
    }
    return LocalTime.parse(value.toString());
  }

  private static LocalDateTime timestamp(Object value) {
    if (value instanceof LocalDateTime t) {
      return t;
    }
    if (value instanceof Instant i) {
      return LocalDateTime.ofInstant(i, ZoneOffset.UTC);
    }
    if (value instanceof java.sql.Timestamp t) {
      return t.toLocalDateTime();
    }
    if (value instanceof Long micros) {
      return LocalDateTime.ofEpochSecond(
          Math.floorDiv(micros, 1_000_000L),
          (int) Math.floorMod(micros, 1_000_000L) * 1000,
          ZoneOffset.UTC);
    }
    return LocalDateTime.parse(value.toString().replace(' ', 'T'));
  }

  private static Instant instant(Object value) {
    if (value instanceof Instant i) {
      return i;
    }
    if (value instanceof OffsetDateTime o) {
      return o.toInstant();
    }
    if (value instanceof LocalDateTime t) {
      return t.toInstant(ZoneOffset.UTC);
    }
    if (value instanceof java.sql.Timestamp t) {
      return t.toInstant();
    }
    return OffsetDateTime.parse(value.toString(), DateTimeFormatter.ISO_OFFSET_DATE_TIME)
        .toInstant();
  }

  private static long interval(Object value) {
    if (value instanceof PGInterval i) {
      // exactly Debezium's MicroDuration arithmetic (doubles, truncated): its numeric interval
      // mode can be a microsecond off for long intervals, and no sink can do better than it
      double seconds =
          ((((i.getYears() * 12 + i.getMonths()) * DAYS_PER_MONTH + i.getDays()) * 24
                              + i.getHours())
                          * 60
                      + i.getMinutes())
                  * 60
              + i.getSeconds();
      return (long) (seconds * 1_000_000d);
    }
    if (value instanceof Number n) {
      return n.longValue();
    }
    java.time.Duration d = java.time.Duration.parse(value.toString());
    return d.getSeconds() * 1_000_000L + d.getNano() / 1000;
  }

  private static JsonNode json(Object value) {
    try {
      return JSON.readTree(value.toString());
    } catch (Exception e) {
      throw new IllegalArgumentException("not JSON: " + value, e);
    }
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
