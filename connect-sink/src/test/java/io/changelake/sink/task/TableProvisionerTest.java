package io.changelake.sink.task;

import static io.changelake.sink.task.ChangeEvents.change;
import static io.changelake.sink.task.ChangeEvents.key;
import static io.changelake.sink.task.ChangeEvents.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableSpec;
import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.sink.config.TableSettings;
import io.changelake.sink.decode.Op;
import java.util.HashMap;
import java.util.Map;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.Test;
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
            ID, settings(), change(Op.CREATE, key(1), null, row(1, "a", "b"), 1, 0));

    assertThat(spec.primaryKeys()).containsExactly("id");
    assertThat(spec.rowType().getFieldNames())
        .containsExactly(
            "id", "name", "bio", SequenceColumns.SOURCE_POSITION, SequenceColumns.KAFKA_OFFSET);
    assertThat(spec.sequenceFields()).containsExactlyElementsOf(SequenceColumns.NAMES);
    // deletes carry only the key: other columns must be nullable even when the source says NOT NULL
    assertThat(spec.rowType().getTypeAt(0).isNullable()).isFalse();
    assertThat(spec.rowType().getTypeAt(1).isNullable()).isTrue();
    assertThat(spec.mergeEngine()).isEqualTo(MergeEngine.DEDUPLICATE);
    assertThat(spec.buckets()).isEqualTo(4);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "partial-update|remove-row|partial-update.remove-record-on-delete",
        "deduplicate|ignore|ignore-delete",
        "first-row|default|ignore-delete",
      })
  void deletePoliciesBecomePaimonOptions(String engine, String policy, String option) {
    TableSpec spec =
        TableProvisioner.spec(
            ID,
            settings("table.merge-engine", engine, "table.delete-policy", policy),
            change(Op.CREATE, key(1), null, row(1, "a", "b"), 1, 0));

    assertThat(spec.options()).containsEntry(option, "true");
  }

  @Test
  void firstRowTablesGetNoSequenceColumns() {
    TableSpec spec =
        TableProvisioner.spec(
            ID,
            settings("table.merge-engine", "first-row"),
            change(Op.CREATE, key(1), null, row(1, "a", "b"), 1, 0));

    assertThat(spec.sequenceFields()).isEmpty();
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
            change(Op.CREATE, key(1), null, row(1, "a", "b"), 1, 0));

    assertThat(spec.primaryKeys()).containsExactly("id", "name");
    assertThat(spec.partitionKeys()).containsExactly("name");
    assertThat(spec.options()).containsEntry("file.format", "orc");
    assertThat(spec.sequenceFields()).containsExactly("bio");
    assertThat(spec.rowType().getFieldNames()).containsExactly("id", "name", "bio");
  }

  @Test
  void primaryKeyFromConfigWhenTheKeyHasNoSchema() {
    TableSpec spec =
        TableProvisioner.spec(
            ID,
            settings("table.primary-key-fields", "id"),
            change(Op.CREATE, null, null, row(1, "a", "b"), 1, 0));

    assertThat(spec.primaryKeys()).containsExactly("id");
  }

  @Test
  void refusesRecordsWithoutAWayToFindThePrimaryKey() {
    assertThatThrownBy(
            () ->
                TableProvisioner.spec(
                    ID, settings(), change(Op.CREATE, null, null, row(1, "a", "b"), 1, 0)))
        .isInstanceOf(RecordException.class)
        .hasMessageContaining("lake.customers")
        .hasMessageContaining("set table.customers.primary-key-fields");
    assertThatThrownBy(
            () ->
                TableProvisioner.spec(
                    ID,
                    settings("table.primary-key-fields", "customer_id"),
                    change(Op.CREATE, null, null, row(1, "a", "b"), 1, 0)))
        .isInstanceOf(RecordException.class)
        .hasMessageContaining("'customer_id'")
        .hasMessageContaining("[id, name, bio]");
  }
}
