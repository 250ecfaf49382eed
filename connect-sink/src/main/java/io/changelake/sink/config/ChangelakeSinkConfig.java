package io.changelake.sink.config;

import io.changelake.lsm.catalog.CommitSafety;
import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.fault.RetrySettings;
import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import io.changelake.schema.config.EnumOption;
import io.changelake.schema.config.LakeOptions;
import io.changelake.schema.config.OptionGroup;
import io.changelake.schema.config.PerTableKeys;
import io.changelake.schema.evolution.EvolutionPolicy;
import io.changelake.sink.route.RegexRules;
import io.changelake.sink.route.TableNameFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/**
 * Every setting of the sink. Table settings exist twice: as defaults ({@code table.<setting>}) and
 * per table ({@code table.<table-name>.<setting>}); Paimon catalog options pass through under
 * {@code paimon.*}, Paimon table options under {@code table.option.*} and {@code
 * table.<table-name>.option.*}.
 */
public final class ChangelakeSinkConfig extends AbstractConfig {

  public static final String CATALOG_GROUP = "Catalog";
  public static final String INPUT_GROUP = "Input";
  public static final String ROUTING_GROUP = "Routing";
  public static final String TABLE_GROUP = "Tables";
  public static final String COMMIT_GROUP = "Commits";
  public static final String COMPACTION_GROUP = "Compaction";
  public static final String RETRY_GROUP = "Retries";

  public static final String WAREHOUSE = LakeOptions.WAREHOUSE;

  public static final String INPUT_FORMAT = "input.format";
  public static final String FLATTENED_OP_FIELD = "input.flattened.op.field";
  public static final String FLATTENED_DELETED_FIELD = "input.flattened.deleted.field";

  public static final String ROUTE_DATABASE = "route.database";
  public static final String ROUTE_TABLE_FORMAT = "route.table.format";
  public static final String ROUTE_REGEX_RULES = "route.regex.rules";
  public static final String ROUTE_SANITIZE = "route.sanitize";

  public static final String TABLE_PREFIX = "table.";
  public static final String TABLE_OPTION_PREFIX = TABLE_PREFIX + "option.";

  /** Setting names shared by the {@code table.*} defaults and the per-table overrides. */
  public static final String AUTO_CREATE = "auto-create";

  public static final String MERGE_ENGINE = "merge-engine";
  public static final String BUCKETS = "buckets";
  public static final String PARTITION_KEYS = "partition-keys";
  public static final String PRIMARY_KEY_FIELDS = "primary-key-fields";
  public static final String KEYLESS_MODE = "keyless-mode";
  public static final String SEQUENCE_FIELDS = "sequence-fields";
  public static final String CHANGELOG_PRODUCER = "changelog-producer";
  public static final String DELETE_POLICY = "delete-policy";
  public static final String TRUNCATE_POLICY = "truncate-policy";
  static final String OPTION = "option";

  public static final String COMMIT_INTERVAL_MS = "commit.interval.ms";
  public static final String COMMIT_BUFFER_BYTES = "commit.buffer.bytes";
  public static final String COMMIT_THREADS = "commit.threads";
  public static final String PIPELINE_THREAD = "pipeline.thread";
  public static final String PIPELINE_THREAD_MIN_RECORDS = "pipeline.thread.min.records";
  public static final String WRITER_MEMORY_BYTES = "writer.memory.bytes";
  public static final String WRITER_SPILL_DIR = "writer.spill.dir";
  public static final String WRITER_IDLE_TIMEOUT_MS = "writer.idle.timeout.ms";

  public static final String COMPACTION_INTERVAL_MS = "compaction.interval.ms";
  public static final String COMPACTION_FULL = "compaction.full";
  public static final String SNAPSHOT_RETAIN_MIN = "compaction.snapshots.retain.min";
  public static final String SNAPSHOT_RETAIN_MAX = "compaction.snapshots.retain.max";
  public static final String SNAPSHOT_TIME_RETAINED_MS = "compaction.snapshots.time.retained.ms";
  public static final String ORPHAN_FILES_OLDER_THAN_MS = "compaction.orphan.files.older.than.ms";

  private static final EnumOption<InputFormat> INPUT_FORMATS = EnumOption.of(InputFormat.class);
  private static final EnumOption<KeylessMode> KEYLESS_MODES = EnumOption.of(KeylessMode.class);
  private static final EnumOption<DeletePolicy> DELETE_POLICIES = EnumOption.of(DeletePolicy.class);
  private static final EnumOption<TruncatePolicy> TRUNCATE_POLICIES =
      EnumOption.of(TruncatePolicy.class);
  private static final EnumOption<MergeEngine> MERGE_ENGINES =
      EnumOption.foreign(
          MergeEngine.values(), MergeEngine::paimonName, MergeEngine::fromPaimonName);
  private static final EnumOption<ChangelogProducer> CHANGELOG_PRODUCERS =
      EnumOption.foreign(
          ChangelogProducer.values(),
          ChangelogProducer::paimonName,
          ChangelogProducer::fromPaimonName);

  /** {@code table.<setting>} defaults, {@code table.<table>.<setting>} overrides. */
  private static final PerTableKeys TABLES =
      new PerTableKeys(TABLE_PREFIX, tableSettingsDef(), OPTION, "paimon-table-option");

  private static final ConfigDef CONFIG_DEF = buildConfigDef();

  private final Map<String, String> originalStrings;

  public ChangelakeSinkConfig(Map<String, String> props) {
    super(CONFIG_DEF, props);
    this.originalStrings = Map.copyOf(props);
    // overrides are outside the ConfigDef (their keys name tables); parse them now so a typo
    // fails at start, not at the first record of that table
    for (String table : overriddenTables(props)) {
      tableSettings(table);
    }
    // refused here, not only in validate(): a snapshot lost on an object store is never noticed
    CommitSafety.problem(LakeCatalogs.catalogOptions(props))
        .ifPresent(
            problem -> {
              throw new ConfigException(WAREHOUSE, props.get(WAREHOUSE), problem);
            });
  }

  /**
   * The definition of every key (with schema-evolution's {@code schema.evolution.*}), for Connect's
   * validation and the generated documentation.
   */
  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG_DEF);
  }

  private static ConfigDef buildConfigDef() {
    ConfigDef def = new ConfigDef();
    defineCatalog(new OptionGroup(def, CATALOG_GROUP));
    defineInput(new OptionGroup(def, INPUT_GROUP));
    defineRouting(new OptionGroup(def, ROUTING_GROUP));
    defineTables(new OptionGroup(def, TABLE_GROUP));
    defineCommits(new OptionGroup(def, COMMIT_GROUP));
    defineCompaction(new OptionGroup(def, COMPACTION_GROUP));
    LakeOptions.defineRetries(new OptionGroup(def, RETRY_GROUP));
    for (ConfigDef.ConfigKey key : EvolutionPolicy.configDef().configKeys().values()) {
      def.define(key);
    }
    return def;
  }

  /** Where the warehouse is and the catalog credentials Connect must mask. */
  private static void defineCatalog(OptionGroup group) {
    LakeOptions.defineCatalog(
        group,
        "Root of the Paimon warehouse, e.g. file:///var/lake or s3://bucket/lake. Every other"
            + " key starting with 'paimon.' is passed to the Paimon catalog with the prefix"
            + " removed (paimon.s3.endpoint, paimon.metastore=jdbc, paimon.lock.enabled, ...)."
            + " Several workers sharing one warehouse on S3 or on a shared disk need a catalog"
            + " lock (paimon.metastore=jdbc with paimon.lock.enabled=true).");
  }

  /** The shape of the record values. */
  private static void defineInput(OptionGroup group) {
    group.define(
        INPUT_FORMAT,
        INPUT_FORMATS,
        InputFormat.AUTO,
        Importance.MEDIUM,
        "Shape of the record values: 'envelope' for Debezium change events (op, before, after,"
            + " source), 'flattened' for rows produced by Debezium's ExtractNewRecordState"
            + " transform, 'auto' to tell them apart per record by the value schema (a struct"
            + " with op and after/before fields is an envelope).",
        Width.SHORT,
        "Input format");
    group.define(
        FLATTENED_OP_FIELD,
        Type.STRING,
        "__op",
        new ConfigDef.NonEmptyString(),
        Importance.LOW,
        "Field of flattened records holding the Debezium operation (ExtractNewRecordState with"
            + " add.fields=op). Records without it are treated as upserts.",
        Width.SHORT,
        "Flattened op field");
    group.define(
        FLATTENED_DELETED_FIELD,
        Type.STRING,
        "__deleted",
        new ConfigDef.NonEmptyString(),
        Importance.LOW,
        "Field of flattened records marking deletes (ExtractNewRecordState with"
            + " delete.tombstone.handling.mode=rewrite). 'true' makes the record a delete.",
        Width.SHORT,
        "Flattened deleted field");
  }

  /** Which table a record goes to. */
  private static void defineRouting(OptionGroup group) {
    group.define(
        ROUTE_DATABASE,
        Type.STRING,
        "default",
        new ConfigDef.NonEmptyString(),
        Importance.MEDIUM,
        "Paimon database the tables are created in; created when missing.",
        Width.MEDIUM,
        "Database");
    group.define(
        ROUTE_TABLE_FORMAT,
        Type.STRING,
        "${topic}",
        new NameFormatValidator(),
        Importance.HIGH,
        "Name of the table a record goes to. Placeholders: ${topic}, ${source.db},"
            + " ${source.schema}, ${source.table} (the last three from the Debezium source"
            + " block). A name without placeholders sends every topic to one table. Used when no"
            + " rule of route.regex.rules matches.",
        Width.MEDIUM,
        "Table name format");
    group.define(
        ROUTE_REGEX_RULES,
        Type.STRING,
        "",
        new RegexRulesValidator(),
        Importance.MEDIUM,
        "Topic-to-table rules tried in order before route.table.format, separated by ';', each"
            + " 'regex=>replacement' matched against the whole topic name, e.g."
            + " 'dbserver1\\.inventory\\.(.*)=>inv_$1;audit\\..*=>audit_log'.",
        Width.LONG,
        "Regex rules");
    group.define(
        ROUTE_SANITIZE,
        Type.BOOLEAN,
        true,
        Importance.LOW,
        "Make table names portable: lower case, every character outside [a-z0-9_] becomes '_'"
            + " (so topic 'server1.public.orders' becomes table 'server1_public_orders').",
        Width.SHORT,
        "Sanitize names");
  }

  /** The documented {@code table.*} defaults, and the keys passed to Paimon or set per table. */
  private static void defineTables(OptionGroup group) {
    TABLES.defineDefaults(group);
    group.define(
        TABLE_OPTION_PREFIX + "*",
        Type.STRING,
        "",
        Importance.LOW,
        "Not a key itself: every 'table.option.<paimon-option>' key sets that Paimon table option"
            + " on created tables (e.g. table.option.file.format=orc), and"
            + " 'table.<table>.<setting>' / 'table.<table>.option.<paimon-option>' override any"
            + " table setting for one table, e.g. table.customers.merge-engine=partial-update.",
        Width.LONG,
        "Paimon table options and per-table overrides");
  }

  /** When buffered rows are committed, and the writers' memory. */
  private static void defineCommits(OptionGroup group) {
    group.define(
        COMMIT_INTERVAL_MS,
        Type.LONG,
        30_000L,
        ConfigDef.Range.atLeast(100),
        Importance.HIGH,
        "Longest time rows stay buffered before they are committed as one snapshot per table."
            + " Rows become visible to readers when committed; shorter means fresher tables and"
            + " more small files (compaction merges them).",
        Width.SHORT,
        "Commit interval");
    group.define(
        COMMIT_BUFFER_BYTES,
        Type.LONG,
        64L * 1024 * 1024,
        ConfigDef.Range.atLeast(1024),
        Importance.MEDIUM,
        "Commit earlier than commit.interval.ms once the writers of a task buffer this many"
            + " bytes.",
        Width.SHORT,
        "Commit buffer size");
    group.define(
        COMMIT_THREADS,
        Type.INT,
        4,
        ConfigDef.Range.between(1, 64),
        Importance.LOW,
        "Committer threads per task: a commit round flushes and commits its tables (only those"
            + " with new rows) this many at a time, off the task thread, which reads on. A round"
            + " of many tables lasts about its tables' commits divided by this; raise it when"
            + " the catalog or object store is slow to answer (each commit waits for several"
            + " requests) and the cores are not busy, lower it to leave cores to the task threads."
            + " Flushes onto a local disk (sort and Parquet, nothing to wait for but the CPU) run"
            + " at most one fewer than the worker's cores at once (at least one), across all"
            + " tasks of the worker, whatever this says.",
        Width.SHORT,
        "Committer threads");
    group.define(
        PIPELINE_THREAD,
        Type.BOOLEAN,
        true,
        Importance.LOW,
        "Decode, route and write each batch of records on a thread of the task's own while"
            + " Connect fetches and converts the next batch on the task thread (at most one batch"
            + " ahead), so the two overlap on a worker with a core to spare. A record that fails"
            + " the task is then reported by the next put or offset commit, one batch later; the"
            + " dead-letter queue takes records in order either way. false: every batch is"
            + " processed inside put, on the task thread.",
        Width.SHORT,
        "Pipeline thread");
    group.define(
        PIPELINE_THREAD_MIN_RECORDS,
        Type.INT,
        100,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "With pipeline.thread, batches of fewer records are written inside put: at low rates"
            + " (batches of a few records) there is no converting to overlap with, and the"
            + " handover cost latency (p99 from the database commit to the committed snapshot at"
            + " 100 tables rose from 1.6-1.7 s to 2.3-2.8 s). Under load Connect delivers up to"
            + " max.poll.records (500) at a time.",
        Width.SHORT,
        "Smallest batch for the pipeline thread");
    group.define(
        WRITER_MEMORY_BYTES,
        Type.LONG,
        256L * 1024 * 1024,
        ConfigDef.Range.atLeast(1024 * 1024),
        Importance.MEDIUM,
        "Write buffer shared by all tables of one task; beyond it rows spill to"
            + " writer.spill.dir. Must fit in the worker heap with the other tasks.",
        Width.SHORT,
        "Writer memory");
    group.define(
        WRITER_SPILL_DIR,
        Type.STRING,
        "",
        Importance.LOW,
        "Local directory for spill and lookup files; empty for a folder under java.io.tmpdir.",
        Width.LONG,
        "Spill directory");
    group.define(
        WRITER_IDLE_TIMEOUT_MS,
        Type.LONG,
        600_000L,
        ConfigDef.Range.atLeast(1000),
        Importance.LOW,
        "Writers of tables that received nothing for this long are closed (after their rows"
            + " were committed), so many rarely written tables do not hold memory.",
        Width.SHORT,
        "Idle writer timeout");
  }

  /** Compaction, snapshot expiry and orphan file removal. */
  private static void defineCompaction(OptionGroup group) {
    group.define(
        COMPACTION_INTERVAL_MS,
        Type.LONG,
        300_000L,
        ConfigDef.Range.atLeast(0),
        Importance.MEDIUM,
        "How often each table is compacted, and old snapshots and orphan files removed; 0"
            + " disables it (run Paimon's compaction job instead). Each table is compacted by"
            + " exactly one task of the connector, so compaction never conflicts with ingest.",
        Width.SHORT,
        "Compaction interval");
    group.define(
        COMPACTION_FULL,
        Type.BOOLEAN,
        false,
        Importance.LOW,
        "Compact fully (one sorted run per bucket) instead of Paimon's usual minor"
            + " compaction. Needed for Iceberg-compatible metadata to show the latest rows.",
        Width.SHORT,
        "Full compaction");
    group.define(
        SNAPSHOT_RETAIN_MIN,
        Type.INT,
        10,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "Snapshots always kept.",
        Width.SHORT,
        "Snapshots kept at least");
    group.define(
        SNAPSHOT_RETAIN_MAX,
        Type.INT,
        100,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "Snapshots kept at most; must be at least compaction.snapshots.retain.min.",
        Width.SHORT,
        "Snapshots kept at most");
    group.define(
        SNAPSHOT_TIME_RETAINED_MS,
        Type.LONG,
        3_600_000L,
        ConfigDef.Range.atLeast(0),
        Importance.LOW,
        "Snapshots younger than this are kept (time travel and lagging readers).",
        Width.SHORT,
        "Snapshot retention time");
    group.define(
        ORPHAN_FILES_OLDER_THAN_MS,
        Type.LONG,
        86_400_000L,
        ConfigDef.Range.atLeast(3_600_000L),
        Importance.LOW,
        "Files no snapshot references and older than this are deleted. Keep it well above the"
            + " longest commit interval: younger files may belong to a commit in flight. Each"
            + " task looks for them at its first compaction round of a table and then at most"
            + " once per this age (the search lists every file of the table).",
        Width.SHORT,
        "Orphan file age");
  }

  /**
   * The table settings by their names without prefix, declared once: {@link #TABLES} documents them
   * as the {@code table.*} defaults and parses the {@code table.<table>.*} overrides with them.
   */
  private static ConfigDef tableSettingsDef() {
    ConfigDef def = new ConfigDef();
    OptionGroup group = new OptionGroup(def, TABLE_GROUP);
    group.define(
        AUTO_CREATE,
        Type.BOOLEAN,
        true,
        Importance.MEDIUM,
        "Create a missing table from the first record routed to it (columns from the record"
            + " schema, primary key from the record key). When false a missing table stops the"
            + " task with an error naming it.",
        Width.SHORT,
        "Auto-create tables");
    group.define(
        MERGE_ENGINE,
        MERGE_ENGINES,
        MergeEngine.DEDUPLICATE,
        Importance.HIGH,
        "Merge engine of created tables. 'deduplicate': the latest event of a key wins (the"
            + " table mirrors the source table). 'partial-update': events of a key are merged"
            + " column by column, null means 'no value', so several topics can fill one wide"
            + " table; needs a delete-policy. 'first-row' and 'aggregation' are passed to"
            + " Paimon as they are (set their options under table.option.*).",
        Width.MEDIUM,
        "Merge engine");
    group.define(
        BUCKETS,
        Type.INT,
        4,
        ConfigDef.Range.between(1, 1024),
        Importance.MEDIUM,
        "Fixed number of buckets of created tables (parallelism of reads and compaction)."
            + " Every commit round writes one data file per bucket that received rows, so a task"
            + " with many small tables writes up to tables x buckets small files per round"
            + " (connect-sink README, 'Table options the sink sets', has measurements of 1 against"
            + " 4). Paimon cannot change the bucket count of an existing table without rewriting"
            + " it. Paimon's dynamic bucket"
            + " mode is not offered: its bucket assignment is not safe with several tasks writing"
            + " one table.",
        Width.SHORT,
        "Buckets");
    group.define(
        PARTITION_KEYS,
        Type.LIST,
        "",
        Importance.MEDIUM,
        "Partition columns of created tables; they become part of the primary key.",
        Width.MEDIUM,
        "Partition keys");
    group.define(
        PRIMARY_KEY_FIELDS,
        Type.LIST,
        "",
        Importance.MEDIUM,
        "Primary key columns when the record key has no struct schema (e.g. a String key"
            + " converter), or when the records carry no key at all (a source table without"
            + " primary key): the table is then a primary-key table on these columns, whose"
            + " values must identify a row. Empty: the fields of the record key are the primary"
            + " key, and keyless records follow keyless-mode.",
        Width.MEDIUM,
        "Primary key fields");
    group.define(
        KEYLESS_MODE,
        KEYLESS_MODES,
        KeylessMode.APPEND,
        Importance.MEDIUM,
        "What records without a key (a source table without primary key) do when"
            + " primary-key-fields is empty. 'append': the table is created append-only (no"
            + " primary key) and every change becomes a row: the row's values (the after image;"
            + " for a delete the before image, or the key alone), the operation in"
            + " _changelake_op (c, r, u, d) and the source position and Kafka offset in"
            + " _changelake_source_position and _changelake_kafka_offset; truncates empty it"
            + " as usual. Other tables of the task are not affected. 'fail': refuse the record"
            + " (dead-letter queue or task failure) naming the table and these settings.",
        Width.SHORT,
        "Keyless records");
    group.define(
        SEQUENCE_FIELDS,
        Type.LIST,
        "",
        Importance.LOW,
        "Columns ordering the versions of one key. Empty (recommended): the sink adds internal"
            + " columns with the source position (PostgreSQL LSN, MySQL binlog position, else"
            + " the source timestamp) and the Kafka offset, which keep per-key order across"
            + " rebalances, retries and restarts.",
        Width.MEDIUM,
        "Sequence fields");
    group.define(
        CHANGELOG_PRODUCER,
        CHANGELOG_PRODUCERS,
        ChangelogProducer.LOOKUP,
        Importance.MEDIUM,
        "Changelog producer of created tables: 'lookup' gives complete update pairs (needed"
            + " by the Changelake source connector) one compaction round after their commit."
            + " 'full-compaction' gives complete update pairs too, merged per key between two"
            + " rounds of the table's compactor, which then compacts that table fully every"
            + " round (compaction.interval.ms is the changelog's latency; costlier compactions,"
            + " fewer changelog rows). 'input' stores the events as received, 'none' stores no"
            + " changelog.",
        Width.SHORT,
        "Changelog producer");
    group.define(
        DELETE_POLICY,
        DELETE_POLICIES,
        DeletePolicy.DEFAULT,
        Importance.MEDIUM,
        "What a delete event does. 'default': deduplicate and first-row tables remove the row,"
            + " partial-update tables need an explicit choice. 'remove-row': remove the whole"
            + " row. 'clear-columns' (partial-update tables only, for one wide table fed by"
            + " several topics): set the columns of the delete's topic to NULL, keep the other"
            + " topics' columns and the row. 'ignore': keep the row.",
        Width.SHORT,
        "Delete policy");
    group.define(
        TRUNCATE_POLICY,
        TRUNCATE_POLICIES,
        TruncatePolicy.DELETE_ALL,
        Importance.MEDIUM,
        "What a truncate event (op 't') does. 'delete-all': empty the table in one snapshot"
            + " that also records the positions after the truncate (rows buffered before it are"
            + " dropped, since it deletes them anyway). 'ignore': keep the rows. 'fail': stop"
            + " the task with an error naming the record.",
        Width.SHORT,
        "Truncate policy");
    return def;
  }

  // ---- typed access ----

  public InputFormat inputFormat() {
    return INPUT_FORMATS.parse(INPUT_FORMAT, getString(INPUT_FORMAT));
  }

  public String flattenedOpField() {
    return getString(FLATTENED_OP_FIELD);
  }

  public String flattenedDeletedField() {
    return getString(FLATTENED_DELETED_FIELD);
  }

  public String database() {
    return getString(ROUTE_DATABASE);
  }

  public TableNameFormat tableNameFormat() {
    return TableNameFormat.parse(getString(ROUTE_TABLE_FORMAT));
  }

  public RegexRules regexRules() {
    return RegexRules.parse(getString(ROUTE_REGEX_RULES));
  }

  public boolean sanitizeNames() {
    return getBoolean(ROUTE_SANITIZE);
  }

  public Duration commitInterval() {
    return Duration.ofMillis(getLong(COMMIT_INTERVAL_MS));
  }

  public long commitBufferBytes() {
    return getLong(COMMIT_BUFFER_BYTES);
  }

  public int commitThreads() {
    return getInt(COMMIT_THREADS);
  }

  public boolean pipelineThread() {
    return getBoolean(PIPELINE_THREAD);
  }

  public int pipelineThreadMinRecords() {
    return getInt(PIPELINE_THREAD_MIN_RECORDS);
  }

  public long writerMemoryBytes() {
    return getLong(WRITER_MEMORY_BYTES);
  }

  /** The spill directory, or empty to pick one under java.io.tmpdir. */
  public Path spillDirectory() {
    String dir = getString(WRITER_SPILL_DIR);
    return dir.isBlank()
        ? Path.of(System.getProperty("java.io.tmpdir"), "changelake-sink")
        : Path.of(dir);
  }

  /** How transient failures of the object store, catalog and broker are waited out. */
  public RetrySettings retrySettings() {
    return LakeOptions.retrySettings(this);
  }

  public Duration writerIdleTimeout() {
    return Duration.ofMillis(getLong(WRITER_IDLE_TIMEOUT_MS));
  }

  /** Compaction interval; zero when the sink does not compact. */
  public Duration compactionInterval() {
    return Duration.ofMillis(getLong(COMPACTION_INTERVAL_MS));
  }

  public boolean fullCompaction() {
    return getBoolean(COMPACTION_FULL);
  }

  public int snapshotsRetainMin() {
    return getInt(SNAPSHOT_RETAIN_MIN);
  }

  public int snapshotsRetainMax() {
    return getInt(SNAPSHOT_RETAIN_MAX);
  }

  public Duration snapshotTimeRetained() {
    return Duration.ofMillis(getLong(SNAPSHOT_TIME_RETAINED_MS));
  }

  public Duration orphanFilesOlderThan() {
    return Duration.ofMillis(getLong(ORPHAN_FILES_OLDER_THAN_MS));
  }

  /** Every {@code paimon.*} key, prefix kept, for {@link LakeCatalogs#open(Map)}. */
  public Map<String, String> catalogProperties() {
    Map<String, String> catalog = new HashMap<>();
    originalStrings.forEach(
        (k, v) -> {
          if (k.startsWith(LakeCatalogs.PREFIX)) {
            catalog.put(k, v);
          }
        });
    return catalog;
  }

  /** Every original property as given, for settings outside this class (schema evolution). */
  public Map<String, String> originalStrings() {
    return originalStrings;
  }

  /** The settings of {@code table}: the defaults with its {@code table.<table>.*} overrides. */
  public TableSettings tableSettings(String table) {
    PerTableKeys.Resolved resolved = TABLES.resolve(originalStrings, table);
    Map<String, Object> parsed = resolved.settings();
    return new TableSettings(
        table,
        (Boolean) parsed.get(AUTO_CREATE),
        new TableLayout(
            stringList(parsed.get(PARTITION_KEYS)),
            (Integer) parsed.get(BUCKETS),
            MERGE_ENGINES.parse(MERGE_ENGINE, parsed.get(MERGE_ENGINE)),
            CHANGELOG_PRODUCERS.parse(CHANGELOG_PRODUCER, parsed.get(CHANGELOG_PRODUCER)),
            stringList(parsed.get(SEQUENCE_FIELDS)),
            resolved.passthrough()),
        stringList(parsed.get(PRIMARY_KEY_FIELDS)),
        KEYLESS_MODES.parse(KEYLESS_MODE, parsed.get(KEYLESS_MODE)),
        DELETE_POLICIES.parse(DELETE_POLICY, parsed.get(DELETE_POLICY)),
        TRUNCATE_POLICIES.parse(TRUNCATE_POLICY, parsed.get(TRUNCATE_POLICY)));
  }

  /** Names of tables that have {@code table.<table>.*} overrides. */
  public static Set<String> overriddenTables(Map<String, String> props) {
    return TABLES.overriddenTables(props);
  }

  @SuppressWarnings("unchecked")
  private static List<String> stringList(Object value) {
    List<String> out = new ArrayList<>();
    for (String s : (List<String>) value) {
      if (!s.isBlank()) {
        out.add(s.trim());
      }
    }
    return out;
  }

  private static final class NameFormatValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      try {
        TableNameFormat.parse(String.valueOf(value));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, value, e.getMessage());
      }
    }

    @Override
    public String toString() {
      return "name with ${topic}, ${source.db}, ${source.schema}, ${source.table}";
    }
  }

  private static final class RegexRulesValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      try {
        RegexRules.parse(String.valueOf(value));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, value, e.getMessage());
      }
    }

    @Override
    public String toString() {
      return "regex=>replacement;...";
    }
  }
}
