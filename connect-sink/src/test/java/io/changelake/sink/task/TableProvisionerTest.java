package io.changelake.sink.task;

import static io.changelake.sink.task.ChangeEvents.change;
import static io.changelake.sink.task.ChangeEvents.key;
import static io.changelake.sink.task.ChangeEvents.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableSpec;
import io.changelake.lsm.testing.TestTables;
import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.sink.config.TableSettings;
import io.changelake.sink.decode.ChangeEvent.RowChange;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TableProvisionerTest {
  static final Identifier ID = Identifier.create("lake", "customers");

  static TableSettings settings(String... keyValues) {
    Map<String, String> props = new HashMap<>();
    props.put("paimon.warehouse", "file:///tmp/x");
    for (int i = 0; i < keyValues.length; i += 2) {
      props.put(keyValues[i], keyValues[i + 1]);
    }
    return new ChangelakeSinkConfig(props).tableSettings("customers");
  }

  @Test
  void createdTablesTakeKeyFromRecordKeyAndGetSequenceColumns() {
    TableSpec spec =
        TableProvisioner.spec(
            ID, settings(), change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0));

    assertThat(spec.primaryKeys()).containsExactly("id");
    assertThat(spec.rowType().getFieldNames())
        .containsExactly(
            "id", "name", "bio", SequenceColumns.SOURCE_POSITION, SequenceColumns.KAFKA_OFFSET);
    assertThat(spec.layout().sequenceFields()).containsExactlyElementsOf(SequenceColumns.NAMES);
    // deletes carry only the key: other columns must be nullable even when the source says NOT NULL
    assertThat(spec.rowType().getTypeAt(0).isNullable()).isFalse();
    assertThat(spec.rowType().getTypeAt(1).isNullable()).isTrue();
    // see SequenceColumns: Paimon keeps only NOT NULL columns of a merged partial-update delete
    assertThat(spec.rowType().getTypeAt(3).isNullable()).isFalse();
    assertThat(spec.rowType().getTypeAt(4).isNullable()).isFalse();
    assertThat(spec.layout().mergeEngine()).isEqualTo(MergeEngine.DEDUPLICATE);
    assertThat(spec.layout().buckets()).isEqualTo(4);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        // one topic: a delete of the topic's sequence group removes the row
        "partial-update|remove-row|false|partial-update.remove-record-on-sequence-group"
            + "|_changelake_source_position",
        // several topics cannot share NOT NULL group sequences: no groups, as before them
        "partial-update|remove-row|true|partial-update.remove-record-on-delete|true",
        "partial-update|ignore|true|ignore-delete|true",
        "deduplicate|ignore|false|ignore-delete|true",
        "first-row|default|false|ignore-delete|true",
      })
  void deletePoliciesBecomePaimonOptions(
      String engine, String policy, boolean severalTopics, String option, String value) {
    TableSpec spec =
        TableProvisioner.spec(
            ID,
            settings("table.merge-engine", engine, "table.delete-policy", policy),
            change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0),
            severalTopics);

    assertThat(spec.layout().options()).containsEntry(option, value);
  }

  @Test
  void partialUpdateTablesOfOneTopicGetOneSequenceGroupOverTheirValueColumns() {
    TableSpec spec =
        TableProvisioner.spec(
            ID,
            settings("table.merge-engine", "partial-update", "table.delete-policy", "remove-row"),
            change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0));

    assertThat(spec.rowType().getFieldNames())
        .containsExactly(
            "id", "name", "bio", SequenceColumns.SOURCE_POSITION, SequenceColumns.KAFKA_OFFSET);
    assertThat(spec.layout().options())
        .containsEntry(
            "fields._changelake_source_position,_changelake_kafka_offset.sequence-group",
            "name,bio")
        .containsEntry(SequenceGroups.LAYOUT, "one-topic")
        .doesNotContainKey("partial-update.remove-record-on-delete");
  }

  @Test
  void partialUpdateTablesOfSeveralTopicsGetANullableSequenceGroupPerTopic() {
    TableSpec spec =
        TableProvisioner.spec(
            ID,
            settings(
                "table.merge-engine", "partial-update", "table.delete-policy", "clear-columns"),
            change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0),
            true);

    List<String> group = SequenceGroups.sequenceNames("customers");
    assertThat(group)
        .containsExactly("_changelake_customers_position", "_changelake_customers_offset");
    assertThat(spec.rowType().getFieldNames()).endsWith(group.toArray(String[]::new));
    assertThat(spec.rowType().getField(group.get(0)).type().isNullable()).isTrue();
    assertThat(spec.layout().options())
        .containsEntry("fields." + String.join(",", group) + ".sequence-group", "name,bio")
        .containsEntry(SequenceGroups.LAYOUT, "per-topic")
        .doesNotContainKey("partial-update.remove-record-on-sequence-group");
  }

  @Test
  void firstRowTablesGetNoSequenceColumns() {
    TableSpec spec =
        TableProvisioner.spec(
            ID,
            settings("table.merge-engine", "first-row"),
            change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0));

    assertThat(spec.layout().sequenceFields()).isEmpty();
    assertThat(spec.rowType().getFieldNames()).containsExactly("id", "name", "bio");
  }

  @Test
  void partitionKeysJoinThePrimaryKeyAndUserOptionsWin() {
    TableSpec spec =
        TableProvisioner.spec(
            ID,
            settings(
                "table.customers.partition-keys", "name",
                "table.customers.option.file.format", "orc",
                "table.customers.sequence-fields", "bio"),
            change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0));

    assertThat(spec.primaryKeys()).containsExactly("id", "name");
    assertThat(spec.layout().partitionKeys()).containsExactly("name");
    assertThat(spec.layout().options()).containsEntry("file.format", "orc");
    assertThat(spec.layout().sequenceFields()).containsExactly("bio");
    assertThat(spec.rowType().getFieldNames()).containsExactly("id", "name", "bio");
  }

  @Test
  void columnsDistinctOnEveryRowOfAFileGetNoParquetDictionary() {
    RowChange first = change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0);

    Map<String, String> options = TableProvisioner.spec(ID, settings(), first).layout().options();

    // the one-column key (also stored as Paimon's _KEY_ copy), Paimon's sequence number and the
    // sink's sequence columns; value columns keep Parquet's default
    assertThat(options)
        .containsEntry("parquet.enable.dictionary#id", "false")
        .containsEntry("parquet.enable.dictionary#_KEY_id", "false")
        .containsEntry("parquet.enable.dictionary#_SEQUENCE_NUMBER", "false")
        .containsEntry("parquet.enable.dictionary#" + SequenceColumns.SOURCE_POSITION, "false")
        .containsEntry("parquet.enable.dictionary#" + SequenceColumns.KAFKA_OFFSET, "false")
        .doesNotContainKeys("parquet.enable.dictionary#name", "parquet.enable.dictionary#bio");
  }

  @Test
  void appendTablesKeepTheDictionaryOfTheOperationColumn() {
    RowChange first = change(DebeziumOp.CREATE, null, null, row(1, "a", "b"), 1, 0);

    Map<String, String> options =
        TableProvisioner.spec(ID, settings("table.keyless-mode", "append"), first)
            .layout()
            .options();

    assertThat(options)
        .containsEntry("parquet.enable.dictionary#" + SequenceColumns.SOURCE_POSITION, "false")
        .doesNotContainKeys(
            "parquet.enable.dictionary#" + SequenceColumns.OPERATION,
            "parquet.enable.dictionary#id",
            "parquet.enable.dictionary#_SEQUENCE_NUMBER");
  }

  @ParameterizedTest
  @CsvSource({
    "parquet.enable.dictionary, true",
    "parquet.enable.dictionary#name, false",
    "file.format, orc"
  })
  void theUsersDictionaryOrFormatOptionsReplaceTheSinksDictionaryDefaults(
      String option, String value) {
    RowChange first = change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0);

    Map<String, String> options =
        TableProvisioner.spec(ID, settings("table.option." + option, value), first)
            .layout()
            .options();

    assertThat(options).containsEntry(option, value);
    assertThat(options.keySet())
        .filteredOn(k -> k.startsWith("parquet.enable.dictionary"))
        .containsExactlyInAnyOrder(
            option.startsWith("parquet") ? new String[] {option} : new String[0]);
  }

  @Test
  void lookupTablesDeduplicateChangelogRowsAndOtherProducersDoNot() {
    RowChange first = change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0);
    assertThat(TableProvisioner.spec(ID, settings(), first).layout().options())
        .containsEntry("changelog-producer.row-deduplicate", "true")
        .containsEntry(
            "changelog-producer.row-deduplicate-ignore-fields", SequenceColumns.KAFKA_OFFSET);
    assertThat(
            TableProvisioner.spec(ID, settings("table.changelog-producer", "input"), first)
                .layout()
                .options())
        .doesNotContainKey("changelog-producer.row-deduplicate");
    // with sequence columns of the user's own a copy cannot be told from a real no-op update
    assertThat(
            TableProvisioner.spec(ID, settings("table.customers.sequence-fields", "bio"), first)
                .layout()
                .options())
        .doesNotContainKey("changelog-producer.row-deduplicate");
    assertThat(
            TableProvisioner.spec(
                    ID,
                    settings("table.customers.option.changelog-producer.row-deduplicate", "false"),
                    first)
                .layout()
                .options())
        .containsEntry("changelog-producer.row-deduplicate", "false");
  }

  /**
   * On a real lookup table: a change written a second time (same source position, the Kafka offset
   * of a re-delivery or of a re-publication) adds no {@code -U/+U} pair to the changelog, while an
   * UPDATE that changed no value (a new source position) and a real update each add one. The same
   * writes with deduplication switched off show the extra pair, so the check can fail.
   */
  @ParameterizedTest
  @CsvSource({"true, 2", "false, 4"})
  void aChangeWrittenTwiceAddsNoUpdatePairToTheLookupChangelog(
      boolean deduplicate, int expectedPairs, @TempDir Path warehouse) throws Exception {
    try (Catalog catalog = TestTables.localCatalog(warehouse)) {
      catalog.createDatabase("lake", true);
      RowChange first = change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0);
      TableSettings settings =
          deduplicate
              ? settings("table.buckets", "1")
              : settings(
                  "table.buckets",
                  "1",
                  "table.customers.option.changelog-producer.row-deduplicate",
                  "false");
      FileStoreTable table = new TableProvisioner(catalog).provision(ID, settings, first);
      List<String> changes =
          LookupChangelog.writeAndRead(
              table,
              warehouse.resolve("spill"),
              List.of(
                  List.of(1, "a", "b", 100L, 7L), // the insert
                  List.of(1, "a", "b", 100L, 7L), // re-delivered by Connect: same offset
                  List.of(1, "a", "b", 100L, 12L), // re-published by Debezium: a new offset
                  List.of(1, "a", "b", 130L, 13L), // an UPDATE that changed nothing
                  List.of(1, "a", "c", 150L, 14L))); // a real update

      assertThat(changes.stream().filter(c -> c.startsWith("-U")).count())
          .as("-U/+U pairs in %s", changes)
          .isEqualTo(expectedPairs);
      assertThat(changes.get(0)).isEqualTo("+I[1, a, b, 100, 7]");
      assertThat(changes.get(changes.size() - 1)).isEqualTo("+U[1, a, c, 150, 14]");
    }
  }

  @Test
  void existingTablesAreUsedAsTheyAreAndCheckedAgainstTheConfig(@TempDir Path warehouse)
      throws Exception {
    try (Catalog catalog = TestTables.localCatalog(warehouse)) {
      catalog.createDatabase("lake", true);
      RowChange first = change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0);
      TableProvisioner provisioner = new TableProvisioner(catalog);
      TableSettings partialUpdate =
          settings("table.merge-engine", "partial-update", "table.delete-policy", "ignore");
      FileStoreTable created = provisioner.provision(ID, partialUpdate, first);

      assertThat(provisioner.provision(ID, partialUpdate, first).schema().id())
          .isEqualTo(created.schema().id());
      assertThatThrownBy(() -> provisioner.provision(ID, settings(), first))
          .isInstanceOf(RecordException.class)
          .hasMessageContaining("uses merge engine 'partial-update'")
          .hasMessageContaining("set table.customers.merge-engine=partial-update");
      assertThatThrownBy(
              () ->
                  provisioner.provision(
                      ID,
                      settings(
                          "table.merge-engine",
                          "partial-update",
                          "table.delete-policy",
                          "remove-row"),
                      first))
          .isInstanceOf(RecordException.class)
          .hasMessageContaining("cannot remove rows on delete");
      Struct otherKey =
          new Struct(SchemaBuilder.struct().field("name", Schema.STRING_SCHEMA).build())
              .put("name", "a");
      assertThatThrownBy(
              () ->
                  provisioner.provision(
                      ID,
                      partialUpdate,
                      change(DebeziumOp.CREATE, otherKey, null, row(1, "a", "b"), 1, 0)))
          .isInstanceOf(RecordException.class)
          .hasMessageContaining("has primary key [id] but the records carry key [name]");
      Identifier missing = Identifier.create("lake", "missing");
      assertThatThrownBy(
              () -> provisioner.provision(missing, settings("table.auto-create", "false"), first))
          .isInstanceOf(RecordException.class)
          .hasMessageContaining("lake.missing does not exist");
    }
  }

  @Test
  void refusesPartialUpdateRemoveRowTablesWithNullableSequenceColumns(@TempDir Path warehouse)
      throws Exception {
    try (Catalog catalog = TestTables.localCatalog(warehouse)) {
      catalog.createDatabase("lake", true);
      RowChange first = change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0);
      TableSettings removeRow =
          settings("table.merge-engine", "partial-update", "table.delete-policy", "remove-row");
      TableSpec current = TableProvisioner.spec(ID, removeRow, first);
      // as sink versions before the sequence columns became NOT NULL created the table
      RowType nullable =
          new RowType(
              current.rowType().getFields().stream()
                  .map(
                      f ->
                          SequenceColumns.NAMES.contains(f.name())
                              ? f.newType(f.type().copy(true))
                              : f)
                  .toList());
      LakeTables.createOrOpen(
          catalog,
          new TableSpec(
              ID,
              nullable,
              current.primaryKeys(),
              current
                  .layout()
                  .with(
                      current.layout().sequenceFields(), // nor had those versions sequence groups
                      Map.of("partial-update.remove-record-on-delete", "true"))));
      TableProvisioner provisioner = new TableProvisioner(catalog);

      assertThatThrownBy(() -> provisioner.provision(ID, removeRow, first))
          .isInstanceOf(RecordException.class)
          .hasMessageContaining("lake.customers")
          .hasMessageContaining("nullable sequence columns")
          .hasMessageContaining("ALTER both columns to NOT NULL");
      Identifier fresh = Identifier.create("lake", "fresh");
      provisioner.provision(fresh, removeRow, first);
      assertThat(provisioner.provision(fresh, removeRow, first).rowType().getFieldNames())
          .containsAll(SequenceColumns.NAMES);
    }
  }

  @Test
  void primaryKeyFromConfigWhenTheKeyHasNoSchema() {
    TableSpec spec =
        TableProvisioner.spec(
            ID,
            settings("table.primary-key-fields", "id"),
            change(DebeziumOp.CREATE, null, null, row(1, "a", "b"), 1, 0));

    assertThat(spec.primaryKeys()).containsExactly("id");
  }

  @Test
  void keylessRecordsMakeAnAppendTableByDefaultAndAreRefusedWithKeylessModeFail() {
    TableSpec append =
        TableProvisioner.spec(
            ID, settings(), change(DebeziumOp.CREATE, null, null, row(1, "a", "b"), 1, 0));
    assertThat(append.primaryKeys()).isEmpty();
    assertThat(append.rowType().getFieldNames())
        .containsExactly(
            "id",
            "name",
            "bio",
            "_changelake_op",
            "_changelake_source_position",
            "_changelake_kafka_offset");
    assertThatThrownBy(
            () ->
                TableProvisioner.spec(
                    ID,
                    settings("table.keyless-mode", "fail"),
                    change(DebeziumOp.CREATE, null, null, row(1, "a", "b"), 1, 0)))
        .isInstanceOf(RecordException.class)
        .hasMessageContaining("lake.customers")
        .hasMessageContaining("set table.customers.primary-key-fields");
  }

  @Test
  void refusesAConfiguredPrimaryKeyThatIsNotAColumn() {
    assertThatThrownBy(
            () ->
                TableProvisioner.spec(
                    ID,
                    settings("table.primary-key-fields", "customer_id"),
                    change(DebeziumOp.CREATE, null, null, row(1, "a", "b"), 1, 0)))
        .isInstanceOf(RecordException.class)
        .hasMessageContaining("'customer_id'")
        .hasMessageContaining("[id, name, bio]");
  }
}
