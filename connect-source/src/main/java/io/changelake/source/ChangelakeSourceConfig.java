package io.changelake.source;

import io.changelake.lsm.changelog.StartPosition;
import io.changelake.lsm.fault.RetrySettings;
import io.changelake.schema.config.ConfigEnum;
import io.changelake.schema.config.EnumOption;
import io.changelake.schema.config.LakeOptions;
import io.changelake.schema.config.OptionGroup;
import io.changelake.source.record.RecordFormat;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/**
 * Every setting of the changelog source. The README's option table is generated from {@link
 * #configDef()}.
 */
public final class ChangelakeSourceConfig extends AbstractConfig {

  public static final String CATALOG_GROUP = "Catalog";
  public static final String TABLE_GROUP = "Tables";
  public static final String START_GROUP = "Start position";
  public static final String READ_GROUP = "Reading";
  public static final String RECORD_GROUP = "Records";
  public static final String RETRY_GROUP = "Retries";

  public static final String WAREHOUSE = LakeOptions.WAREHOUSE;

  public static final String TABLES = "tables";
  public static final String TABLES_REGEX = "tables.regex";
  public static final String TABLES_DISCOVERY_INTERVAL_MS = "tables.discovery.interval.ms";

  public static final String START_POSITION = "start.position";
  public static final String START_SNAPSHOT_ID = "start.snapshot.id";
  public static final String START_TIMESTAMP_MS = "start.timestamp.ms";

  public static final String POLL_INTERVAL_MS = "poll.interval.ms";
  public static final String BATCH_SIZE = "batch.size";
  public static final String TRANSACTION_MAX_DURATION_MS = "transaction.max.duration.ms";

  /** The producer setting a transaction must commit within (the broker aborts it after). */
  static final String PRODUCER_TRANSACTION_TIMEOUT = "producer.override.transaction.timeout.ms";

  public static final String CONSUMER_ID = "consumer.id";
  public static final String CONSUMER_EXPIRATION_MS = "consumer.expiration.ms";

  public static final String TOPIC_NAME_FORMAT = "topic.name.format";
  public static final String RECORD_FORMAT = "record.format";
  public static final String FLAT_OP_FIELD = "flat.op.field";
  public static final String TOMBSTONES_ON_DELETE = "tombstones.on.delete";

  /** Placeholders allowed in {@link #TOPIC_NAME_FORMAT}. */
  public static final String DATABASE_PLACEHOLDER = "${database}";

  public static final String TABLE_PLACEHOLDER = "${table}";

  /** How the connector starts reading a table for which no offset is stored. */
  public enum StartMode implements ConfigEnum {
    FULL("The table's current rows as op=r events, then every change after them."),
    LATEST("Only changes committed after the connector starts."),
    SNAPSHOT("Changes from " + START_SNAPSHOT_ID + " on."),
    TIMESTAMP("Changes of snapshots committed at or after " + START_TIMESTAMP_MS + ".");

    private final String description;

    StartMode(String description) {
      this.description = description;
    }

    @Override
    public String description() {
      return description;
    }
  }

  private static final EnumOption<StartMode> START_MODES = EnumOption.of(StartMode.class);
  private static final EnumOption<RecordFormat> RECORD_FORMATS = EnumOption.of(RecordFormat.class);
  private static final ConfigDef CONFIG_DEF = buildConfigDef();

  /** Parses and validates {@code props}; a rule spanning several keys fails like a single key. */
  public ChangelakeSourceConfig(Map<String, String> props) {
    super(CONFIG_DEF, props);
    for (Map.Entry<String, String> issue : crossKeyIssues().entrySet()) {
      throw new ConfigException(issue.getKey(), get(issue.getKey()), issue.getValue());
    }
  }

  private ChangelakeSourceConfig(Map<String, String> props, boolean unused) {
    super(CONFIG_DEF, props);
  }

  /**
   * Violations of rules spanning several keys, by the key a user should change; for Connect's
   * validation, which reports errors per key. {@code props} must pass the single-key validators.
   */
  public static Map<String, String> crossKeyIssues(Map<String, String> props) {
    return new ChangelakeSourceConfig(props, false).crossKeyIssues();
  }

  /** The definition of every key, for Connect's validation and the generated documentation. */
  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG_DEF);
  }

  private static ConfigDef buildConfigDef() {
    ConfigDef def = new ConfigDef();
    defineCatalog(new OptionGroup(def, CATALOG_GROUP));
    defineTables(new OptionGroup(def, TABLE_GROUP));
    defineStart(new OptionGroup(def, START_GROUP));
    defineReading(new OptionGroup(def, READ_GROUP));
    defineRecords(new OptionGroup(def, RECORD_GROUP));
    LakeOptions.defineRetries(new OptionGroup(def, RETRY_GROUP));
    return def;
  }

  /** Where the warehouse is and the catalog credentials Connect must mask. */
  private static void defineCatalog(OptionGroup group) {
    LakeOptions.defineCatalog(
        group,
        "Paimon warehouse the tables live in, e.g. file:///data/lake or s3://bucket/lake. Every"
            + " other key starting with 'paimon.' is passed to the Paimon catalog with the prefix"
            + " removed (paimon.metastore, paimon.s3.endpoint, paimon.lock.enabled, ...).");
  }

  /** Which tables are published. */
  private static void defineTables(OptionGroup group) {
    group.define(
        TABLES,
        Type.LIST,
        List.of(),
        ConfigDef.LambdaValidator.with(
            (name, value) -> {
              for (Object entry : (List<?>) value) {
                TableNames.parse(name, entry.toString());
              }
            },
            () -> "comma-separated list of <database>.<table>"),
        Importance.HIGH,
        "Tables to publish, as <database>.<table>. Set this or '"
            + TABLES_REGEX
            + "', not both. A listed table that does not exist yet is picked up once it is"
            + " created.",
        Width.LONG,
        "Tables");
    group.define(
        TABLES_REGEX,
        Type.STRING,
        null,
        ConfigDef.LambdaValidator.with(
            (name, value) -> {
              if (value != null) {
                try {
                  Pattern.compile(value.toString());
                } catch (PatternSyntaxException e) {
                  throw new ConfigException(name, value, "not a valid regex: " + e.getMessage());
                }
              }
            },
            () -> "Java regular expression"),
        Importance.HIGH,
        "Publish every table whose <database>.<table> name matches this Java regular expression"
            + " entirely (e.g. 'shop\\..*'). Tables created later are picked up without a restart."
            + " Set this or '"
            + TABLES
            + "', not both.",
        Width.LONG,
        "Table regex");
    group.define(
        TABLES_DISCOVERY_INTERVAL_MS,
        Type.LONG,
        30_000L,
        ConfigDef.Range.atLeast(100),
        Importance.LOW,
        "How often the connector lists the catalog for new, dropped or re-bucketed tables. A"
            + " change makes Connect reassign the tasks.",
        Width.SHORT,
        "Discovery interval (ms)");
  }

  /** Where a table without a stored offset is read from. */
  private static void defineStart(OptionGroup group) {
    group
        .define(
            START_POSITION,
            START_MODES,
            StartMode.FULL,
            Importance.HIGH,
            "Where to start reading a table that has no stored offset yet. 'full': the table's"
                + " current rows as read events (op=r), then every later change; 'latest': only"
                + " changes committed after the start; 'snapshot': changes from snapshot '"
                + START_SNAPSHOT_ID
                + "' on; 'timestamp': changes of snapshots committed at or after '"
                + START_TIMESTAMP_MS
                + "'. Once an offset is stored the connector resumes from it and ignores this.",
            Width.SHORT,
            "Start position")
        .dependents(List.of(START_SNAPSHOT_ID, START_TIMESTAMP_MS));
    group
        .define(
            START_SNAPSHOT_ID,
            Type.LONG,
            null,
            ConfigDef.LambdaValidator.with(
                (name, value) -> {
                  if (value != null && (Long) value < 1) {
                    throw new ConfigException(name, value, "snapshot ids start at 1");
                  }
                },
                () -> "snapshot id >= 1"),
            Importance.MEDIUM,
            "First snapshot to publish (inclusive) when '" + START_POSITION + "' is 'snapshot'.",
            Width.SHORT,
            "Start snapshot id")
        .recommended(List.of(), visibleWhenStartIs(StartMode.SNAPSHOT));
    group
        .define(
            START_TIMESTAMP_MS,
            Type.LONG,
            null,
            ConfigDef.LambdaValidator.with(
                (name, value) -> {
                  if (value != null && (Long) value < 0) {
                    throw new ConfigException(name, value, "must be epoch milliseconds >= 0");
                  }
                },
                () -> "epoch milliseconds"),
            Importance.MEDIUM,
            "Epoch milliseconds; when '"
                + START_POSITION
                + "' is 'timestamp', publish snapshots committed at or after this time.",
            Width.SHORT,
            "Start timestamp (ms)")
        .recommended(List.of(), visibleWhenStartIs(StartMode.TIMESTAMP));
  }

  /** How changes are read, batched and tracked in Paimon. */
  private static void defineReading(OptionGroup group) {
    group.define(
        POLL_INTERVAL_MS,
        Type.LONG,
        1_000L,
        ConfigDef.Range.atLeast(10),
        Importance.MEDIUM,
        "How long a task waits before looking for new snapshots when it has caught up.",
        Width.SHORT,
        "Poll interval (ms)");
    group.define(
        BATCH_SIZE,
        Type.INT,
        2_048,
        ConfigDef.Range.between(1, 1_000_000),
        Importance.MEDIUM,
        "Most changes one poll returns. A larger snapshot is returned in several polls; with"
            + " transaction.boundary=connector they form one Kafka transaction unless it would"
            + " stay open longer than transaction.max.duration.ms.",
        Width.SHORT,
        "Batch size");
    group.define(
        TRANSACTION_MAX_DURATION_MS,
        Type.LONG,
        20_000L,
        ConfigDef.Range.atLeast(10),
        Importance.MEDIUM,
        "With exactly-once and transaction.boundary=connector: longest a Kafka transaction stays"
            + " open. Each snapshot is one transaction, except that a snapshot still being"
            + " published after this long (a large full-state read, a large compaction) is"
            + " committed at the end of the current poll and continues in a new transaction;"
            + " offsets are per row, so every change is still published exactly once, but"
            + " read_committed consumers then see such a snapshot in parts. Keep it well below"
            + " the producer's transaction.timeout.ms (Kafka's default 60000; set with"
            + " producer.override.transaction.timeout.ms or the worker's"
            + " producer.transaction.timeout.ms), past which the broker aborts the transaction"
            + " and the task fails: the bound is checked between polls, and a producer held back"
            + " in a send (a broker quota, a slow broker) keeps the transaction open meanwhile.",
        Width.SHORT,
        "Longest transaction (ms)");
    group.define(
        CONSUMER_ID,
        Type.STRING,
        null,
        ConfigDef.LambdaValidator.with(
            (name, value) -> {
              if (value != null && !value.toString().matches("[A-Za-z0-9_.-]+")) {
                throw new ConfigException(name, value, "use letters, digits, '_', '.', '-'");
              }
            },
            () -> "[A-Za-z0-9_.-]+, default: the connector name"),
        Importance.LOW,
        "Base of the Paimon consumer ids the tasks register, so that Paimon keeps the snapshots"
            + " they have not published yet; a reader of some buckets of a table appends them"
            + " ('-buckets-0_2'). Defaults to the connector name (characters other than letters,"
            + " digits, '_', '.', '-' replaced by '_') plus '-' and 8 hex digits of a hash of the"
            + " exact name, so 'a b' and 'a_b' differ. Ids are matched exactly, never by prefix:"
            + " resetting connector 'orders' leaves the consumers of 'orders-eu' alone. Consumers"
            + " of old bucket sets are removed once no reader uses them; those of a deleted"
            + " connector stay until the table's consumer.expiration-time ("
            + CONSUMER_EXPIRATION_MS
            + ").",
        Width.MEDIUM,
        "Paimon consumer id");
    group.define(
        CONSUMER_EXPIRATION_MS,
        Type.LONG,
        Duration.ofDays(7).toMillis(),
        ConfigDef.Range.atLeast(Duration.ofMinutes(30).toMillis()),
        Importance.LOW,
        "How long a Paimon consumer nobody advances may keep a table's snapshots from expiring:"
            + " the bound for the consumers of a deleted connector (Connect does not tell a"
            + " connector it was deleted, so none can remove its own), and for a connector"
            + " stopped or paused longer, which then resumes only if the table still holds its"
            + " position. The connector sets it as consumer.expiration-time on every table it"
            + " reads that has none; a table's own value (7 days on tables the Changelake sink"
            + " creates) is kept. Paimon applies it when the table's writer expires snapshots;"
            + " running tasks rewrite their consumers every 10 minutes, even when idle.",
        Width.SHORT,
        "Abandoned consumer bound (ms)");
  }

  /** The topics and the shape of the records. */
  private static void defineRecords(OptionGroup group) {
    group.define(
        TOPIC_NAME_FORMAT,
        Type.STRING,
        DATABASE_PLACEHOLDER + "." + TABLE_PLACEHOLDER,
        ConfigDef.LambdaValidator.with(
            (name, value) -> {
              String format = value.toString();
              if (!format.contains(TABLE_PLACEHOLDER)) {
                throw new ConfigException(
                    name, value, "must contain " + TABLE_PLACEHOLDER + " so tables get own topics");
              }
              String rest = format.replace(TABLE_PLACEHOLDER, "").replace(DATABASE_PLACEHOLDER, "");
              if (rest.contains("${")) {
                throw new ConfigException(
                    name,
                    value,
                    "only " + DATABASE_PLACEHOLDER + " and " + TABLE_PLACEHOLDER + " are known");
              }
            },
            () -> "text with ${database} and ${table}"),
        Importance.HIGH,
        "Name of the topic each table is published to; "
            + DATABASE_PLACEHOLDER
            + " and "
            + TABLE_PLACEHOLDER
            + " are replaced by the table's names. The topic must exist or be created by the"
            + " worker's topic.creation.* settings.",
        Width.MEDIUM,
        "Topic name format");
    group
        .define(
            RECORD_FORMAT,
            RECORD_FORMATS,
            RecordFormat.ENVELOPE,
            Importance.HIGH,
            "'envelope': Debezium's change event (before, after, source, op, ts_ms) that"
                + " Debezium-aware consumers such as Debezium's JDBC sink apply as they are;"
                + " 'flat': the row itself (the old row for deletes) plus the field '"
                + FLAT_OP_FIELD
                + "'.",
            Width.SHORT,
            "Record format")
        .dependents(List.of(FLAT_OP_FIELD));
    group
        .define(
            FLAT_OP_FIELD,
            Type.STRING,
            "__op",
            new ConfigDef.NonEmptyString(),
            Importance.LOW,
            "Name of the operation field (c, u, d, r) added to flat records.",
            Width.SHORT,
            "Flat operation field")
        .recommended(
            List.of(),
            new ConfigDef.Recommender() {
              @Override
              public List<Object> validValues(String name, Map<String, Object> parsedConfig) {
                return List.of();
              }

              @Override
              public boolean visible(String name, Map<String, Object> parsedConfig) {
                return RECORD_FORMATS.is(parsedConfig.get(RECORD_FORMAT), RecordFormat.FLAT);
              }
            });
    group.define(
        TOMBSTONES_ON_DELETE,
        Type.BOOLEAN,
        true,
        Importance.MEDIUM,
        "Follow each delete event with a tombstone (the key and a null value), so log compaction"
            + " can drop the key from compacted topics.",
        Width.SHORT,
        "Tombstones on delete");
  }

  private static ConfigDef.Recommender visibleWhenStartIs(StartMode mode) {
    return new ConfigDef.Recommender() {
      @Override
      public List<Object> validValues(String name, Map<String, Object> parsedConfig) {
        return List.of();
      }

      @Override
      public boolean visible(String name, Map<String, Object> parsedConfig) {
        return START_MODES.is(parsedConfig.get(START_POSITION), mode);
      }
    };
  }

  private Map<String, String> crossKeyIssues() {
    Map<String, String> issues = new java.util.LinkedHashMap<>();
    boolean hasList = !getList(TABLES).isEmpty();
    boolean hasRegex = getString(TABLES_REGEX) != null;
    if (hasList == hasRegex) {
      issues.put(
          TABLES,
          "set exactly one of '"
              + TABLES
              + "' (a list of <database>.<table>) or '"
              + TABLES_REGEX
              + "' (a regular expression)");
    }
    StartMode mode = startMode();
    if (mode == StartMode.SNAPSHOT && getLong(START_SNAPSHOT_ID) == null) {
      issues.put(START_SNAPSHOT_ID, "required when " + START_POSITION + "=snapshot");
    }
    if (mode == StartMode.TIMESTAMP && getLong(START_TIMESTAMP_MS) == null) {
      issues.put(START_TIMESTAMP_MS, "required when " + START_POSITION + "=timestamp");
    }
    Object producerTimeout = originals().get(PRODUCER_TRANSACTION_TIMEOUT);
    if (producerTimeout != null) {
      try {
        long timeout = Long.parseLong(producerTimeout.toString().trim());
        if (transactionMaxDuration().toMillis() >= timeout) {
          issues.put(
              TRANSACTION_MAX_DURATION_MS,
              "must be below "
                  + PRODUCER_TRANSACTION_TIMEOUT
                  + " ("
                  + timeout
                  + " ms), or the broker aborts transactions before the task commits them;"
                  + " a third of it leaves room for slow sends");
        }
      } catch (NumberFormatException e) {
        // Connect validates the producer setting itself
      }
    }
    return issues;
  }

  /** The tables to publish: either the explicit list or the regex. */
  public TableSelector tableSelector() {
    String regex = getString(TABLES_REGEX);
    if (regex != null) {
      return TableSelector.matching(Pattern.compile(regex));
    }
    return TableSelector.listed(
        getList(TABLES).stream().map(entry -> TableNames.parse(TABLES, entry)).toList());
  }

  public Duration discoveryInterval() {
    return Duration.ofMillis(getLong(TABLES_DISCOVERY_INTERVAL_MS));
  }

  public StartMode startMode() {
    return START_MODES.parse(START_POSITION, getString(START_POSITION));
  }

  /** The reader's start position for tables without a stored offset. */
  public StartPosition startPosition() {
    return switch (startMode()) {
      case FULL -> new StartPosition.FullThenChanges();
      case LATEST -> new StartPosition.Latest();
      case SNAPSHOT -> new StartPosition.FromSnapshot(getLong(START_SNAPSHOT_ID));
      case TIMESTAMP -> new StartPosition.FromTimestamp(getLong(START_TIMESTAMP_MS));
    };
  }

  /** How transient failures of the object store and the catalog are waited out. */
  public RetrySettings retrySettings() {
    return LakeOptions.retrySettings(this);
  }

  public Duration pollInterval() {
    return Duration.ofMillis(getLong(POLL_INTERVAL_MS));
  }

  public int batchSize() {
    return getInt(BATCH_SIZE);
  }

  public Duration transactionMaxDuration() {
    return Duration.ofMillis(getLong(TRANSACTION_MAX_DURATION_MS));
  }

  /**
   * The base of the Paimon consumer ids of the connector's readers ({@code consumer.id} as set), by
   * default the connector name with characters Paimon cannot take replaced, plus a short hash of
   * the exact name: {@code a b} and {@code a_b} get different ids. Readers append their bucket set,
   * and ids are matched exactly, so connector {@code orders} never touches {@code orders-eu}'s.
   */
  public Duration consumerExpiration() {
    return Duration.ofMillis(getLong(CONSUMER_EXPIRATION_MS));
  }

  public String consumerIdBase(String connectorName) {
    return Optional.ofNullable(getString(CONSUMER_ID))
        .orElseGet(() -> defaultConsumerId(connectorName));
  }

  static String defaultConsumerId(String connectorName) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(connectorName.getBytes(StandardCharsets.UTF_8));
      return connectorName.replaceAll("[^A-Za-z0-9_.-]", "_")
          + "-"
          + HexFormat.of().formatHex(digest, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  public String topicNameFormat() {
    return getString(TOPIC_NAME_FORMAT);
  }

  public RecordFormat recordFormat() {
    return RECORD_FORMATS.parse(RECORD_FORMAT, getString(RECORD_FORMAT));
  }

  public String flatOpField() {
    return getString(FLAT_OP_FIELD);
  }

  public boolean tombstonesOnDelete() {
    return getBoolean(TOMBSTONES_ON_DELETE);
  }
}
