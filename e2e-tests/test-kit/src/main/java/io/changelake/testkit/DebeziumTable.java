package io.changelake.testkit;

import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.schema.debezium.EnvelopeFields;
import io.changelake.schema.debezium.EnvelopeFields.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * One PostgreSQL table as Debezium's PostgreSQL connector (3.6) describes it: the key and row
 * schemas ({@code <topic>.Key}, {@code <topic>.Value}), the envelope ({@code <topic>.Envelope}) and
 * its {@code source} block. Its changes ({@link #create}, {@link #update}, {@link #delete}, ...)
 * each get the next LSN and source timestamp, like a real WAL, and render in every {@link
 * InputShape}.
 *
 * <p>Build with {@link #builder(String)}: {@code DebeziumTable.builder("customers").key("id",
 * Schema.INT32_SCHEMA).column("name", Schema.OPTIONAL_STRING_SCHEMA).build()}. The topic defaults
 * to {@code <prefix>.<schema>.<table>} with prefix {@code server1} and schema {@code public}.
 */
public final class DebeziumTable {
  /** Debezium's PostgreSQL {@code source} block schema, as 3.6 writes it. */
  public static final Schema SOURCE =
      Source.schema("io.debezium.connector.postgresql.Source")
          .field(Source.TS_MS, Schema.INT64_SCHEMA)
          .field(
              Source.SNAPSHOT,
              SchemaBuilder.string()
                  .optional()
                  .name("io.debezium.data.Enum")
                  .version(1)
                  .parameter(
                      "allowed",
                      "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental")
                  .defaultValue("false")
                  .build())
          .field(Source.DB, Schema.STRING_SCHEMA)
          .field(Source.SEQUENCE, Schema.OPTIONAL_STRING_SCHEMA)
          .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
          .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
          .field(Source.SCHEMA, Schema.STRING_SCHEMA)
          .field(Source.TABLE, Schema.STRING_SCHEMA)
          .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
          .field(Source.LSN, Schema.OPTIONAL_INT64_SCHEMA)
          .field("xmin", Schema.OPTIONAL_INT64_SCHEMA)
          .build();

  private static final Schema TRANSACTION =
      SchemaBuilder.struct()
          .name("event.block")
          .version(1)
          .optional()
          .field("id", Schema.STRING_SCHEMA)
          .field("total_order", Schema.INT64_SCHEMA)
          .field("data_collection_order", Schema.INT64_SCHEMA)
          .build();

  private final String topic;
  private final String server;
  private final String database;
  private final String schemaName;
  private final String table;
  private final Schema key;
  private final Schema row;
  private final Schema envelope;
  // shared with tables derived by withColumn: one WAL, whatever the schema
  private final AtomicLong lsn;
  private final AtomicLong sourceTsMs;

  private DebeziumTable(Builder b, AtomicLong lsn, AtomicLong sourceTsMs) {
    this.server = b.server;
    this.database = b.database;
    this.schemaName = b.schema;
    this.table = b.table;
    this.topic = b.topic != null ? b.topic : b.server + "." + b.schema + "." + b.table;
    this.lsn = lsn;
    this.sourceTsMs = sourceTsMs;
    SchemaBuilder rowBuilder = SchemaBuilder.struct().name(topic + ".Value").optional();
    SchemaBuilder keyBuilder = SchemaBuilder.struct().name(topic + ".Key");
    for (Field f : b.columns) {
      rowBuilder.field(f.name(), f.schema());
      if (b.keyColumns.contains(f.name())) {
        keyBuilder.field(f.name(), f.schema());
      }
    }
    this.row = rowBuilder.build();
    // a table without primary key: Debezium sends its changes without a key
    this.key = b.keyColumns.isEmpty() ? null : keyBuilder.build();
    this.envelope =
        SchemaBuilder.struct()
            .name(topic + EnvelopeFields.ENVELOPE_NAME_SUFFIX)
            .version(2)
            .field(EnvelopeFields.BEFORE, row)
            .field(EnvelopeFields.AFTER, row)
            .field(EnvelopeFields.SOURCE, SOURCE)
            .field("transaction", TRANSACTION)
            .field(EnvelopeFields.OP, Schema.STRING_SCHEMA)
            .field(EnvelopeFields.TS_MS, Schema.OPTIONAL_INT64_SCHEMA)
            .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
            .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
  }

  /** A table named {@code table}; add key and columns, in column order. */
  public static Builder builder(String table) {
    return new Builder(table);
  }

  /** Builds a {@link DebeziumTable}. */
  public static final class Builder {
    private final String table;
    private String server = "server1";
    private String database = "shop";
    private String schema = "public";
    private String topic;
    private long firstLsn = 30_000_000L;
    private long firstSourceTsMs = 1_764_500_000_000L;
    private final List<Field> columns = new ArrayList<>();
    private final List<String> keyColumns = new ArrayList<>();

    private Builder(String table) {
      this.table = Objects.requireNonNull(table);
    }

    /** A key column (also a row column, in the order added). */
    public Builder key(String name, Schema schema) {
      keyColumns.add(name);
      return column(name, schema);
    }

    /** A row column, in the order added. */
    public Builder column(String name, Schema schema) {
      columns.add(new Field(name, columns.size(), schema));
      return this;
    }

    /** Debezium's {@code topic.prefix} (the source block's {@code name}). */
    public Builder server(String server) {
      this.server = server;
      return this;
    }

    public Builder database(String database) {
      this.database = database;
      return this;
    }

    public Builder schema(String schema) {
      this.schema = schema;
      return this;
    }

    /** A topic other than {@code <server>.<schema>.<table>} (routed by a transform, say). */
    public Builder topic(String topic) {
      this.topic = topic;
      return this;
    }

    /** The LSN before the first change; each change adds 8. */
    public Builder firstLsn(long lsn) {
      this.firstLsn = lsn;
      return this;
    }

    /** The source timestamp before the first change; each change adds 1 ms. */
    public Builder firstSourceTsMs(long tsMs) {
      this.firstSourceTsMs = tsMs;
      return this;
    }

    public DebeziumTable build() {
      return new DebeziumTable(this, new AtomicLong(firstLsn), new AtomicLong(firstSourceTsMs));
    }
  }

  /**
   * The same table with one more (optional) column at the end: a schema change in the source. Its
   * changes continue this table's LSNs.
   */
  public DebeziumTable withColumn(String name, Schema schema) {
    Builder b =
        new Builder(table).server(server).database(database).schema(schemaName).topic(topic);
    for (Field f : row.fields()) {
      if (key != null && key.field(f.name()) != null) {
        b.key(f.name(), f.schema());
      } else {
        b.column(f.name(), f.schema());
      }
    }
    b.column(name, schema);
    return new DebeziumTable(b, lsn, sourceTsMs);
  }

  public String topic() {
    return topic;
  }

  /** Debezium's {@code topic.prefix}. */
  public String server() {
    return server;
  }

  public String database() {
    return database;
  }

  public String schemaName() {
    return schemaName;
  }

  /** The source table's name. */
  public String table() {
    return table;
  }

  /** The key schema; null for a table without primary key. */
  public Schema keySchema() {
    return key;
  }

  /** The row schema ({@code before}/{@code after}), optional as in Debezium's envelope. */
  public Schema rowSchema() {
    return row;
  }

  public Schema envelopeSchema() {
    return envelope;
  }

  /** A row, values in column order (missing trailing values stay null). */
  public Struct row(Object... values) {
    if (values.length > row.fields().size()) {
      throw new IllegalArgumentException(
          values.length + " values for " + row.fields().size() + " columns of " + table);
    }
    Struct struct = new Struct(row);
    for (int i = 0; i < values.length; i++) {
      struct.put(row.fields().get(i), values[i]);
    }
    return struct;
  }

  /** The key struct of a row (its key columns); null for a table without primary key. */
  public Struct keyOf(Struct row) {
    if (key == null) {
      return null;
    }
    Struct k = new Struct(key);
    for (Field f : key.fields()) {
      k.put(f, row.get(f.name()));
    }
    return k;
  }

  /** A key struct, values in key-column order. */
  public Struct key(Object... values) {
    Struct k = new Struct(key);
    for (int i = 0; i < values.length; i++) {
      k.put(key.fields().get(i), values[i]);
    }
    return k;
  }

  /** An insert. */
  public Change create(Struct after) {
    return change(DebeziumOp.CREATE, keyOf(after), null, after);
  }

  /** A row read by Debezium's snapshot. */
  public Change read(Struct after) {
    return change(DebeziumOp.READ, keyOf(after), null, after);
  }

  /**
   * An update; {@code before} is null under PostgreSQL's default replica identity (only {@code
   * REPLICA IDENTITY FULL} sends it).
   */
  public Change update(Struct before, Struct after) {
    return change(DebeziumOp.UPDATE, keyOf(after), before, after);
  }

  /** A delete: {@code before} is the whole row (replica identity full) or only its key columns. */
  public Change delete(Struct before) {
    return change(DebeziumOp.DELETE, keyOf(before), before, null);
  }

  /**
   * A delete whose before image holds only the key columns (PostgreSQL's default replica identity);
   * the other columns must be optional.
   */
  public Change deleteKey(Object... keyValues) {
    Struct before = new Struct(row);
    Struct k = key(keyValues);
    for (Field f : key.fields()) {
      before.put(f.name(), k.get(f));
    }
    return delete(before);
  }

  /** {@code TRUNCATE} of the table: an event without key and rows. */
  public Change truncate() {
    return change(DebeziumOp.TRUNCATE, null, null, null);
  }

  /** The tombstone Debezium writes after a delete (for log compaction): a key, no value. */
  public Change tombstone(Struct key) {
    return new Change(this, null, key, null, null, lsn.get(), sourceTsMs.get(), null);
  }

  private Change change(DebeziumOp op, Struct key, Struct before, Struct after) {
    return new Change(
        this, op, key, before, after, lsn.addAndGet(8), sourceTsMs.incrementAndGet(), null);
  }

  /** The {@code source} block of a change. */
  Struct source(Change change) {
    long tsMs = change.sourceTsMs();
    return new Struct(SOURCE)
        .put(Source.VERSION, "3.6.1.Final")
        .put(Source.CONNECTOR, "postgresql")
        .put(Source.NAME, server)
        .put(Source.TS_MS, tsMs)
        .put(Source.SNAPSHOT, change.op() == DebeziumOp.READ ? "true" : "false")
        .put(Source.DB, database)
        .put(Source.SEQUENCE, change.sequence())
        .put("ts_us", tsMs * 1000)
        .put("ts_ns", tsMs * 1_000_000)
        .put(Source.SCHEMA, schemaName)
        .put(Source.TABLE, table)
        .put("txId", change.lsn() / 100)
        .put(Source.LSN, change.lsn());
  }

  /** The envelope of a change (null for a tombstone). */
  Struct envelope(Change change) {
    if (change.op() == null) {
      return null;
    }
    // Debezium stamps processing a few ms after the database made the change
    long tsMs = change.sourceTsMs() + 5;
    return new Struct(envelope)
        .put(EnvelopeFields.BEFORE, change.before())
        .put(EnvelopeFields.AFTER, change.after())
        .put(EnvelopeFields.SOURCE, source(change))
        .put(EnvelopeFields.OP, change.op().code())
        .put(EnvelopeFields.TS_MS, tsMs)
        .put("ts_us", tsMs * 1000)
        .put("ts_ns", tsMs * 1_000_000);
  }
}
