package io.changelake.schema.debezium;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;

/**
 * Field names of Debezium's change events, as Debezium's connectors write them and its consumers
 * (the JDBC sink, {@code ExtractNewRecordState}) read them. The sink decodes envelopes and
 * flattened records by these names, the source writes its envelopes with them, and the quickstart
 * prints them.
 */
public final class EnvelopeFields {
  private EnvelopeFields() {}

  /** Debezium names an envelope's value schema {@code <topic>.Envelope}. */
  public static final String ENVELOPE_NAME_SUFFIX = ".Envelope";

  public static final String BEFORE = "before";
  public static final String AFTER = "after";
  public static final String SOURCE = "source";
  public static final String OP = "op";

  /**
   * When the connector processed the change (not when the database made it: see {@link Source}).
   */
  public static final String TS_MS = "ts_ms";

  /**
   * The prefix {@code ExtractNewRecordState} gives the metadata it adds to a flattened row ({@code
   * __op}, {@code __deleted}, {@code __lsn}, {@code __source_ts_ms}, ...).
   */
  public static final String FLATTENED_PREFIX = "__";

  /** The prefix of source-block fields flattened with {@code add.fields=source.*}. */
  public static final String FLATTENED_SOURCE_PREFIX = FLATTENED_PREFIX + "source_";

  /** True when a value schema name is Debezium's envelope name. */
  public static boolean isEnvelopeName(String schemaName) {
    return schemaName != null && schemaName.endsWith(ENVELOPE_NAME_SUFFIX);
  }

  /** Fields of the {@code source} block. */
  public static final class Source {
    private Source() {}

    public static final String VERSION = "version";
    public static final String CONNECTOR = "connector";

    /** The connector's logical name (Debezium's {@code topic.prefix}). */
    public static final String NAME = "name";

    /** When the database made the change. */
    public static final String TS_MS = "ts_ms";

    /** {@code true}/{@code first}/{@code last}/... during a snapshot, {@code false} after it. */
    public static final String SNAPSHOT = "snapshot";

    public static final String DB = "db";
    public static final String SCHEMA = "schema";
    public static final String TABLE = "table";

    /** PostgreSQL: the change's LSN. */
    public static final String LSN = "lsn";

    /** PostgreSQL: {@code ["<last commit LSN>","<this LSN>"]} as text. */
    public static final String SEQUENCE = "sequence";

    /** MySQL/MariaDB: binlog file name. */
    public static final String FILE = "file";

    /** MySQL/MariaDB: position in the binlog file. */
    public static final String POS = "pos";

    /**
     * A source block schema named {@code schemaName}, starting as every Debezium connector's does
     * (and this project's source connector's): {@code version}, {@code connector}, {@code name},
     * all required strings; the caller adds what its connector records after them.
     */
    public static SchemaBuilder schema(String schemaName) {
      return SchemaBuilder.struct()
          .name(schemaName)
          .field(VERSION, Schema.STRING_SCHEMA)
          .field(CONNECTOR, Schema.STRING_SCHEMA)
          .field(NAME, Schema.STRING_SCHEMA);
    }
  }
}
