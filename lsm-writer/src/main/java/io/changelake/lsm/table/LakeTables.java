package io.changelake.lsm.table;

import io.changelake.lsm.fault.LakeDataException;
import io.changelake.lsm.fault.LakeException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.schema.SchemaValidation;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataField;

/** Creates and opens primary-key tables (and append-only tables for sources without a key). */
public final class LakeTables {
  /**
   * How long a Paimon consumer (a changelog reader's mark of the snapshots it still needs) outlives
   * its last update on tables created here, unless the spec's options set {@code
   * consumer.expiration-time}. Readers that run refresh theirs far more often.
   */
  public static final String DEFAULT_CONSUMER_EXPIRATION = "7 d";

  private LakeTables() {}

  /**
   * Creates the table if it does not exist, else opens it as it is. Safe when several tasks create
   * the same table at once.
   */
  public static FileStoreTable createOrOpen(Catalog catalog, TableSpec spec) {
    Identifier id = spec.identifier();
    if (exists(catalog, id)) {
      return open(catalog, id);
    }
    Schema schema = toSchema(spec);
    createDatabaseIfAbsent(catalog, id.getDatabaseName());
    try {
      catalog.createTable(id, schema, true);
    } catch (Exception e) {
      // the filesystem catalog reports a lost creation race as "Schema in filesystem exists":
      // the winner's table is the table
      catalog.invalidateTable(id);
      if (!exists(catalog, id)) {
        throw new IllegalArgumentException(
            "Cannot create table " + id.getFullName() + ": " + e.getMessage(), e);
      }
    }
    return open(catalog, id);
  }

  /**
   * Creates the database unless it exists. Safe when several tasks create it at once: catalogs
   * check, then create (the JDBC catalog inserts a row), so the loser of a race fails although the
   * database now exists.
   */
  public static void createDatabaseIfAbsent(Catalog catalog, String database) {
    try {
      catalog.createDatabase(database, true);
    } catch (Exception e) {
      // another task may have created it between the catalog's check and its create
      if (!databaseExists(catalog, database)) {
        throw LakeException.wrap(
            "Cannot create database '" + database + "': " + e.getMessage(),
            e,
            (message, cause) -> new LakeDataException(message, database, null, cause));
      }
    }
  }

  /** Opens an existing table on its latest schema. */
  public static FileStoreTable open(Catalog catalog, Identifier id) {
    Table table;
    try {
      table = catalog.getTable(id);
    } catch (Catalog.TableNotExistException e) {
      throw new IllegalArgumentException("Table " + id.getFullName() + " does not exist", e);
    }
    if (!(table instanceof FileStoreTable fileStoreTable)) {
      throw new LakeDataException(
          "Table "
              + id.getFullName()
              + " is a "
              + table.getClass().getSimpleName()
              + ", not a Paimon file store table",
          id.getFullName(),
          null,
          null);
    }
    // a caching catalog may hand out a table on an older schema
    return onLatestSchema(fileStoreTable);
  }

  /**
   * {@code table} on its latest schema <em>with that schema's options</em>. Paimon's {@code
   * copyWithLatestSchema} takes the latest columns but keeps the options of the schema the object
   * was loaded on, so a writer, compactor or reader moved on that way after an ALTER that added
   * columns together with options naming them (a partial-update table's new sequence group) merges
   * the new columns without those options: a group's NULLs and deletes are lost in the merge.
   * Options set on this object only (dynamic options such as {@code write-only}, the catalog's
   * {@code path}) are kept.
   */
  public static FileStoreTable onLatestSchema(FileStoreTable table) {
    SchemaManager schemas = table.schemaManager();
    Optional<TableSchema> latest = schemas.latest();
    if (latest.isEmpty() || latest.get().id() == table.schema().id()) {
      return table;
    }
    Map<String, String> stored = schemas.schema(table.schema().id()).options();
    Map<String, String> options = new HashMap<>(latest.get().options());
    table
        .options()
        .forEach(
            (key, value) -> {
              if (!value.equals(stored.get(key))) {
                options.put(key, value);
              }
            });
    TableSchema schema = latest.get().copy(options);
    SchemaValidation.validateTableSchema(schema);
    return table.copy(schema);
  }

  /**
   * The Paimon schema the spec describes; the spec's free options win over its typed fields. A spec
   * without primary key is an append-only table in Paimon's bucket-unaware mode (any number of
   * writers append without conflicts): merge engine, changelog producer, sequence fields and bucket
   * count do not apply to it.
   */
  public static Schema toSchema(TableSpec spec) {
    TableLayout layout = spec.layout();
    Schema.Builder builder = Schema.newBuilder();
    for (DataField field : spec.rowType().getFields()) {
      builder.column(field.name(), field.type(), field.description());
    }
    builder.partitionKeys(layout.partitionKeys());
    if (spec.primaryKeys().isEmpty()) {
      builder.option(CoreOptions.BUCKET.key(), "-1");
    } else {
      builder.primaryKey(spec.primaryKeys());
      builder.option(CoreOptions.BUCKET.key(), Integer.toString(layout.buckets()));
      builder.option(CoreOptions.MERGE_ENGINE.key(), layout.mergeEngine().paimonName());
      builder.option(CoreOptions.CHANGELOG_PRODUCER.key(), layout.changelogProducer().paimonName());
      if (!layout.sequenceFields().isEmpty()) {
        builder.option(CoreOptions.SEQUENCE_FIELD.key(), String.join(",", layout.sequenceFields()));
      }
    }
    // a changelog reader that is gone for good (a deleted source connector, an old bucket set)
    // would otherwise keep every snapshot from its position on forever
    builder.option(CoreOptions.CONSUMER_EXPIRATION_TIME.key(), DEFAULT_CONSUMER_EXPIRATION);
    for (Map.Entry<String, String> option : layout.options().entrySet()) {
      builder.option(option.getKey(), option.getValue());
    }
    return builder.build();
  }

  private static boolean exists(Catalog catalog, Identifier id) {
    try {
      catalog.getTable(id);
      return true;
    } catch (Catalog.TableNotExistException e) {
      return false;
    }
  }

  private static boolean databaseExists(Catalog catalog, String database) {
    try {
      catalog.getDatabase(database);
      return true;
    } catch (Catalog.DatabaseNotExistException e) {
      return false;
    }
  }
}
