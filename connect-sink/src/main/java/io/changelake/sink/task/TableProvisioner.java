package io.changelake.sink.task;

import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.InternalColumns;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import io.changelake.lsm.table.TableSpec;
import io.changelake.schema.TypeMapping;
import io.changelake.sink.config.DeletePolicy;
import io.changelake.sink.config.KeylessMode;
import io.changelake.sink.config.TableSettings;
import io.changelake.sink.decode.ChangeEvent.RowChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the table of a change event: opens it when it exists (and checks it against the config),
 * else creates it from the event's schemas when auto-create is on.
 */
final class TableProvisioner {
  private static final Logger LOG = LoggerFactory.getLogger(TableProvisioner.class);

  /** Parquet's own key (Paimon passes {@code parquet.*} table options to the writer). */
  private static final String PARQUET_DICTIONARY = "parquet.enable.dictionary";

  private final Catalog catalog;

  TableProvisioner(Catalog catalog) {
    this.catalog = catalog;
  }

  /** Opens or creates {@code id} for {@code first}, the first event routed to it by this task. */
  FileStoreTable provision(Identifier id, TableSettings settings, RowChange first) {
    return provision(id, settings, first, false);
  }

  /**
   * As {@link #provision(Identifier, TableSettings, RowChange)}.
   *
   * @param severalTopics true when the routing may send other topics to the table too (its
   *     partial-update sequence groups are then per topic)
   */
  FileStoreTable provision(
      Identifier id, TableSettings settings, RowChange first, boolean severalTopics) {
    Table existing = find(id);
    if (existing != null) {
      if (!(existing instanceof FileStoreTable table)) {
        throw new RecordException(
            "Table " + id.getFullName() + " is not a Paimon file store table; route elsewhere");
      }
      check(table, settings, first);
      return table;
    }
    if (!settings.autoCreate()) {
      throw new RecordException(
          "Table "
              + id.getFullName()
              + " does not exist and table."
              + settings.name()
              + ".auto-create is false; create the table or set auto-create=true");
    }
    return LakeTables.createOrOpen(catalog, spec(id, settings, first, severalTopics));
  }

  /** Opens an existing table as it is. */
  FileStoreTable open(Identifier id) {
    if (find(id) instanceof FileStoreTable table) {
      return table;
    }
    throw new RecordException("Table " + id.getFullName() + " is not a Paimon file store table");
  }

  private Table find(Identifier id) {
    try {
      return catalog.getTable(id);
    } catch (Catalog.TableNotExistException e) {
      return null;
    }
  }

  /** The spec of a table created for {@code first}, a table only its topic feeds. */
  static TableSpec spec(Identifier id, TableSettings settings, RowChange first) {
    return spec(id, settings, first, false);
  }

  /** The spec of a table created for {@code first}. */
  static TableSpec spec(
      Identifier id, TableSettings settings, RowChange first, boolean severalTopics) {
    TableLayout configured = settings.layout();
    Schema rowSchema = first.row() != null ? first.row().schema() : first.key().schema();
    List<String> recordKeys = primaryKeys(id, settings, first);
    if (recordKeys.isEmpty()) {
      return appendSpec(id, settings, rowSchema);
    }
    List<String> primaryKeys = new ArrayList<>(recordKeys);
    for (String partition : configured.partitionKeys()) {
      if (!primaryKeys.contains(partition)) {
        primaryKeys.add(partition);
      }
    }
    RowType columns =
        columns(
            id,
            settings,
            rowSchema,
            primaryKeys,
            "Primary key or partition",
            "primary-key-fields / partition-keys");
    // only key columns are NOT NULL: deletes carry the key alone, and columns added later must
    // not make older rows invalid
    List<DataField> fields = new ArrayList<>();
    for (DataField f : columns.getFields()) {
      boolean key = primaryKeys.contains(f.name());
      fields.add(f.newType(f.type().copy(!key)));
    }
    RowType rowType = new RowType(fields);
    List<String> sequenceFields = configured.sequenceFields();
    Map<String, String> deduplication = Map.of();
    // first-row keeps the first version of a key and Paimon refuses sequence fields for it
    if (sequenceFields.isEmpty() && configured.mergeEngine() != MergeEngine.FIRST_ROW) {
      rowType = SequenceColumns.appendTo(rowType);
      sequenceFields = SequenceColumns.NAMES;
      deduplication = changelogDeduplication(settings);
    }
    SequenceGroups.Layout layout =
        SequenceGroups.forNewTable(settings, first.origin().topic(), severalTopics);
    SequenceGroups.NewTable grouped =
        SequenceGroups.newTable(
            layout, rowType, primaryKeys, first.origin().topic(), settings.deletePolicy());
    Map<String, String> options = options(settings, layout);
    options.putAll(grouped.options());
    options.putAll(deduplication);
    List<String> distinct = new ArrayList<>(sinkColumns(grouped.rowType()));
    // Paimon's data files of a key table add the key again as _KEY_<column>, and a sequence number
    distinct.add(SpecialFields.SEQUENCE_NUMBER.name());
    if (recordKeys.size() == 1) {
      distinct.add(recordKeys.get(0));
      distinct.add(SpecialFields.KEY_FIELD_PREFIX + recordKeys.get(0));
    }
    options.putAll(withoutDictionaries(distinct, configured));
    options.putAll(configured.options());
    return new TableSpec(
        id, grouped.rowType(), primaryKeys, configured.with(sequenceFields, options));
  }

  /**
   * A change event the sink writes twice (Connect re-delivers records not committed before a
   * partition moved or a task restarted; a restarted Debezium task re-publishes from its last
   * committed offset, under new Kafka offsets) must not reach the changelog twice: Paimon's lookup
   * and full-compaction producers would publish the second copy as a {@code -U/+U} pair with before
   * equal to after. {@code changelog-producer.row-deduplicate} drops such pairs; the Kafka offset
   * column is left out of the comparison because a re-published copy differs only there. The source
   * position stays in it, so an UPDATE that changed no value in the database (a new position) still
   * reaches the changelog. Only with the sink's own sequence columns: with user-chosen ones nothing
   * tells a copy from a real no-op update.
   */
  private static Map<String, String> changelogDeduplication(TableSettings settings) {
    if (settings.layout().changelogProducer() != ChangelogProducer.LOOKUP
        && settings.layout().changelogProducer() != ChangelogProducer.FULL_COMPACTION) {
      return Map.of();
    }
    return Map.of(
        CoreOptions.CHANGELOG_PRODUCER_ROW_DEDUPLICATE.key(),
        "true",
        CoreOptions.CHANGELOG_PRODUCER_ROW_DEDUPLICATE_IGNORE_FIELDS.key(),
        SequenceColumns.KAFKA_OFFSET);
  }

  /**
   * The columns of the record value; fails, naming the option to fix, when a column the table
   * settings require ({@code what}: key or partition columns) is not one of them.
   */
  private static RowType columns(
      Identifier id,
      TableSettings settings,
      Schema rowSchema,
      List<String> required,
      String what,
      String options) {
    RowType columns = TypeMapping.toRowType(rowSchema);
    for (String column : required) {
      if (columns.getFieldIndex(column) < 0) {
        throw new RecordException(
            what
                + " column '"
                + column
                + "' of table "
                + id.getFullName()
                + " is not a field of the record value "
                + rowSchema.fields().stream().map(Field::name).toList()
                + "; fix table."
                + settings.name()
                + "."
                + options,
            column,
            null);
      }
    }
    return columns;
  }

  /**
   * An append-only change table for records without a key: every column nullable, plus the
   * operation and the source position of each change.
   */
  private static TableSpec appendSpec(Identifier id, TableSettings settings, Schema rowSchema) {
    TableLayout configured = settings.layout();
    RowType columns =
        columns(id, settings, rowSchema, configured.partitionKeys(), "Partition", "partition-keys");
    List<DataField> fields = new ArrayList<>();
    for (DataField f : columns.getFields()) {
      // partition columns must not be null in Paimon; everything else may be (deletes of a source
      // with REPLICA IDENTITY DEFAULT carry no values)
      fields.add(f.newType(f.type().copy(!configured.partitionKeys().contains(f.name()))));
    }
    RowType rowType = SequenceColumns.appendChangeColumnsTo(new RowType(fields));
    Map<String, String> options = withoutDictionaries(sinkColumns(rowType), configured);
    options.putAll(configured.options());
    return new TableSpec(id, rowType, List.of(), configured.with(List.of(), options));
  }

  /**
   * Parquet options that turn the dictionary off for {@code columns}, whose values differ on every
   * row of a data file. Parquet would fill a dictionary with every value and throw it away when the
   * page is written (its encoded size is no smaller): the files come out the same without it, for
   * about 7 % less CPU per flush (connect-sink README, "Table options the sink sets"). None when
   * the user's options name a dictionary setting themselves or another file format: theirs win.
   */
  private static Map<String, String> withoutDictionaries(
      List<String> columns, TableLayout configured) {
    Map<String, String> options = new HashMap<>();
    Map<String, String> user = configured.options();
    String format =
        user.getOrDefault(CoreOptions.FILE_FORMAT.key(), CoreOptions.FILE_FORMAT_PARQUET);
    if (!CoreOptions.FILE_FORMAT_PARQUET.equalsIgnoreCase(format)
        || user.keySet().stream().anyMatch(key -> key.startsWith(PARQUET_DICTIONARY))) {
      return options;
    }
    for (String column : columns) {
      options.put(PARQUET_DICTIONARY + "#" + column, "false");
    }
    return options;
  }

  /**
   * The sink's sequence and position columns of {@code rowType}: distinct on every row. The
   * operation column of a change table, five values, keeps its dictionary.
   */
  private static List<String> sinkColumns(RowType rowType) {
    return rowType.getFieldNames().stream()
        .filter(c -> c.startsWith(InternalColumns.PREFIX) && !c.equals(SequenceColumns.OPERATION))
        .toList();
  }

  /** Delete options; with sequence groups, {@link SequenceGroups} adds those it needs. */
  private static Map<String, String> options(TableSettings settings, SequenceGroups.Layout layout) {
    Map<String, String> options = new HashMap<>();
    if (settings.deletePolicy() == DeletePolicy.IGNORE
        || (settings.layout().mergeEngine() == MergeEngine.FIRST_ROW
            && settings.deletePolicy() == DeletePolicy.DEFAULT)) {
      options.put("ignore-delete", "true");
    } else if (settings.layout().mergeEngine() == MergeEngine.PARTIAL_UPDATE
        && settings.deletePolicy() == DeletePolicy.REMOVE_ROW
        && layout instanceof SequenceGroups.None) {
      // Paimon refuses it next to sequence groups
      options.put("partial-update.remove-record-on-delete", "true");
    }
    return options;
  }

  /**
   * The primary key: the fields of the record key, else the configured columns; empty for an
   * append-only change table (no key and {@code keyless-mode=append}).
   */
  static List<String> primaryKeys(Identifier id, TableSettings settings, RowChange event) {
    if (event.key() != null) {
      return event.key().schema().fields().stream().map(Field::name).toList();
    }
    if (!settings.primaryKeyFields().isEmpty()) {
      return settings.primaryKeyFields();
    }
    if (settings.keylessMode() == KeylessMode.APPEND) {
      return List.of();
    }
    throw new RecordException(
        "Record for table "
            + id.getFullName()
            + " has no struct key to take the primary key from (a source table without primary"
            + " key, or a key converter not producing structs) and table."
            + settings.name()
            + ".keyless-mode=fail; set table."
            + settings.name()
            + ".primary-key-fields to columns that identify a row, or keyless-mode=append for an"
            + " append-only table of the changes");
  }

  /** Refuses an existing table whose key or merge engine contradicts the config. */
  private static void check(FileStoreTable table, TableSettings settings, RowChange first) {
    String name = table.fullName();
    List<String> tableKeys = table.schema().primaryKeys();
    Set<String> recordKeys =
        new LinkedHashSet<>(primaryKeys(Identifier.fromString(name), settings, first));
    if (tableKeys.isEmpty()) {
      if (!recordKeys.isEmpty()
          || SequenceColumns.operationIndexIn(table.rowType()) < 0
          || table.bucketMode() != BucketMode.BUCKET_UNAWARE) {
        throw new RecordException(
            "Table "
                + name
                + " has no primary key and is not an append-only change table of this sink, but"
                + " the records carry key "
                + recordKeys
                + "; route the topic to another table, or drop the table so it is re-created");
      }
      return; // an append-only change table: merge engine and delete options do not apply
    }
    recordKeys.addAll(table.schema().partitionKeys());
    if (!Set.copyOf(tableKeys).equals(recordKeys)) {
      throw new RecordException(
          "Table "
              + name
              + " has primary key "
              + tableKeys
              + " but the records carry key "
              + recordKeys
              + "; route the topic to another table, or drop the table so it is re-created");
    }
    MergeEngine engine = MergeEngine.of(table.options());
    if (engine != settings.layout().mergeEngine()) {
      throw new RecordException(
          "Table "
              + name
              + " uses merge engine '"
              + engine.paimonName()
              + "' but the config asks for '"
              + settings.layout().mergeEngine().paimonName()
              + "'; set table."
              + settings.name()
              + ".merge-engine="
              + engine.paimonName()
              + " to use the table as it is");
    }
    if (engine == MergeEngine.PARTIAL_UPDATE
        && settings.deletePolicy() == DeletePolicy.REMOVE_ROW
        && !"true".equals(table.options().get("partial-update.remove-record-on-delete"))
        && !table.options().containsKey("partial-update.remove-record-on-sequence-group")) {
      throw new RecordException(
          "Table "
              + name
              + " is a partial-update table without partial-update.remove-record-on-delete, so"
              + " it cannot remove rows on delete; set table."
              + settings.name()
              + ".delete-policy=ignore"
              + (SequenceGroups.of(table.options()) instanceof SequenceGroups.PerTopic
                  ? " or clear-columns (the table has a sequence group per topic)"
                  : ", or ALTER the table to set that option"));
    }
    if (engine == MergeEngine.PARTIAL_UPDATE
        && SequenceGroups.of(table.options()) instanceof SequenceGroups.None
        && table.options().keySet().stream().noneMatch(k -> k.endsWith(".sequence-group"))) {
      // kept working as before, not migrated (connect-sink README, "Merge engines")
      LOG.info(
          "Table {} is a partial-update table without sequence groups (created by a sink"
              + " version before them, or fed by several topics with delete-policy=remove-row):"
              + " a column set to NULL in the source keeps its stored value there. Re-create the"
              + " table (drop it, reset the connector's offsets) to have NULLs applied",
          name);
    }
    if (engine == MergeEngine.PARTIAL_UPDATE
        && settings.deletePolicy() == DeletePolicy.CLEAR_COLUMNS
        && (SequenceGroups.of(table.options()) instanceof SequenceGroups.None
            || table.options().containsKey("partial-update.remove-record-on-sequence-group"))) {
      throw new RecordException(
          "Table "
              + name
              + (SequenceGroups.of(table.options()) instanceof SequenceGroups.None
                  ? " has no sequence groups of this sink (created by an earlier version, or"
                      + " with your own sequence fields or groups), so a delete cannot clear"
                      + " the columns of one topic"
                  : " removes rows on delete (partial-update.remove-record-on-sequence-group)")
              + "; set table."
              + settings.name()
              + ".delete-policy=remove-row or ignore, or drop the table and reset the"
              + " connector's offsets so it is re-created with delete-policy=clear-columns");
    }
    if (engine == MergeEngine.PARTIAL_UPDATE
        && "true".equals(table.options().get("partial-update.remove-record-on-delete"))
        && SequenceColumns.NAMES.stream()
            .map(column -> table.rowType().getFieldIndex(column))
            .anyMatch(i -> i >= 0 && table.rowType().getTypeAt(i).isNullable())) {
      // see SequenceColumns: such a table keeps keys that were updated and deleted in one commit
      throw new RecordException(
          "Table "
              + name
              + " was created by an earlier sink version with nullable sequence columns "
              + SequenceColumns.NAMES
              + ", with which Paimon drops deletes of keys updated in the same commit; drop the"
              + " table and reset the connector's offsets so it is re-created, or ALTER both"
              + " columns to NOT NULL");
    }
  }
}
