package io.changelake.sink.task;

import io.changelake.lsm.table.InternalColumns;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import io.changelake.schema.evolution.CompanionChanges;
import io.changelake.sink.config.DeletePolicy;
import io.changelake.sink.config.TableSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

/**
 * The sequence groups of the partial-update tables the sink creates. Paimon's partial-update reads
 * null as "no value", so on its own it cannot set a column to NULL; a sequence group is taken whole
 * (NULLs included) by a change whose group sequence is newer, and skipped by a change whose group
 * sequence is null. So each topic gets one group holding its columns, ordered by its source
 * position and Kafka offset:
 *
 * <ul>
 *   <li>{@link OneTopic}: a table only one topic feeds. Its group is every value column, ordered by
 *       the table's own NOT NULL sequence columns ({@link SequenceColumns}); a delete removes the
 *       row ({@code partial-update.remove-record-on-sequence-group}). NOT NULL matters: when Paimon
 *       merges an update and a delete of one key into a delete, only NOT NULL columns survive, and
 *       a delete without its group sequence would no longer remove anything.
 *   <li>{@link PerTopic}: a table the routing may feed from several topics (a wide table). Each
 *       topic's group has two nullable columns of its own ({@code _changelake_<topic>_position},
 *       {@code _changelake_<topic>_offset}), null in the other topics' rows so their groups are
 *       left alone. A delete retracts the topic's group (its columns become NULL) and the row stays
 *       ({@code delete-policy=clear-columns}); removing rows is not offered, for the NOT NULL
 *       reason above.
 *   <li>{@link None}: no groups: tables of other engines, tables with the user's own sequence
 *       fields or groups, and partial-update tables created by sink versions without groups (there
 *       null still means "no value").
 * </ul>
 *
 * <p>Which topic a table was created for, and which topic owns a group, is kept in table options
 * ({@code changelake.sequence-groups*}) so every task and every restart sees the same layout.
 */
final class SequenceGroups {
  /** The layout: {@code one-topic} or {@code per-topic}; absent for {@link None}. */
  static final String LAYOUT = "changelake.sequence-groups";

  /** The topic a {@code one-topic} table was created for; for per-topic, the prefix of owners. */
  static final String TOPIC = "changelake.sequence-groups.topic";

  private static final String GROUP_SUFFIX = ".sequence-group";
  private static final String REMOVE_ON_GROUP = "partial-update.remove-record-on-sequence-group";

  private SequenceGroups() {}

  /** How a table's rows are grouped. */
  sealed interface Layout {}

  /** No groups of the sink's. */
  record None() implements Layout {}

  /** One group over every value column, for the one topic that feeds the table. */
  record OneTopic(String topic) implements Layout {}

  /** One group per topic. */
  record PerTopic() implements Layout {}

  /** Positions of the sequence columns of one topic's group in a row type. */
  record Columns(int position, int offset) {}

  /** The layout recorded in a table's options. */
  static Layout of(Map<String, String> options) {
    String layout = options.get(LAYOUT);
    if ("one-topic".equals(layout)) {
      return new OneTopic(options.get(TOPIC));
    }
    return "per-topic".equals(layout) ? new PerTopic() : new None();
  }

  /**
   * The layout of a table created now for {@code topic}.
   *
   * @param severalTopics true when the routing may send other topics to the same table
   */
  static Layout forNewTable(TableSettings settings, String topic, boolean severalTopics) {
    TableLayout configured = settings.layout();
    if (configured.mergeEngine() != MergeEngine.PARTIAL_UPDATE
        || !configured.sequenceFields().isEmpty()
        || configured.options().keySet().stream()
            .anyMatch(
                k ->
                    k.endsWith(GROUP_SUFFIX)
                        || k.equals(REMOVE_ON_GROUP)
                        || k.equals("partial-update.remove-record-on-delete"))) {
      return new None(); // the user's own ordering or delete handling: leave it to them
    }
    if (!severalTopics) {
      return new OneTopic(topic);
    }
    // removing rows needs NOT NULL group sequences, which several topics cannot share
    return settings.deletePolicy() == DeletePolicy.REMOVE_ROW ? new None() : new PerTopic();
  }

  /** The row type and options of a new table, {@code rowType} holding the sequence columns. */
  record NewTable(RowType rowType, Map<String, String> options) {}

  static NewTable newTable(
      Layout layout, RowType rowType, List<String> primaryKeys, String topic, DeletePolicy policy) {
    Map<String, String> options = new HashMap<>();
    List<String> members = valueColumns(rowType, primaryKeys);
    if (layout instanceof OneTopic) {
      options.put(LAYOUT, "one-topic");
      options.put(TOPIC, topic);
      if (!members.isEmpty()) {
        options.put(groupKey(SequenceColumns.NAMES), String.join(",", members));
      }
      if (policy == DeletePolicy.REMOVE_ROW) {
        options.put(REMOVE_ON_GROUP, SequenceColumns.SOURCE_POSITION);
      }
      return new NewTable(rowType, options);
    }
    if (layout instanceof PerTopic) {
      options.put(LAYOUT, "per-topic");
      List<String> names = sequenceNames(topic);
      List<DataField> fields = new ArrayList<>(rowType.getFields());
      int nextId = rowType.getFields().stream().mapToInt(DataField::id).max().orElse(-1) + 1;
      fields.add(new DataField(nextId, names.get(0), DataTypes.BIGINT()));
      fields.add(new DataField(nextId + 1, names.get(1), DataTypes.BIGINT()));
      options.put(ownerKey(topic), topic);
      if (!members.isEmpty()) {
        options.put(groupKey(names), String.join(",", members));
      }
      return new NewTable(new RowType(fields), options);
    }
    return new NewTable(rowType, options);
  }

  /**
   * What a table needs, in the same ALTER as the columns added for a record of {@code topic}: the
   * new value columns join the topic's group (a one-topic table: its only group; per topic: the
   * topic's group, created with its two sequence columns when the topic is new).
   *
   * @param table the table's name, for errors
   */
  static CompanionChanges companion(Layout layout, String topic, List<String> keys, String table) {
    if (layout instanceof OneTopic) {
      return (target, mapping, options) -> {
        List<String> members = valueColumns(target, keys);
        return sameMembers(options.get(groupKey(SequenceColumns.NAMES)), members)
            ? List.of()
            : List.of(
                SchemaChange.setOption(groupKey(SequenceColumns.NAMES), String.join(",", members)));
      };
    }
    if (!(layout instanceof PerTopic)) {
      return CompanionChanges.NONE;
    }
    return (target, mapping, options) -> {
      List<SchemaChange> changes = new ArrayList<>();
      List<String> names = sequenceNames(topic);
      String owner = options.get(ownerKey(topic));
      if (owner != null && !owner.equals(topic)) {
        throw new RecordException(
            "Topics '"
                + owner
                + "' and '"
                + topic
                + "' both feed table "
                + table
                + " and their names map to the same sequence group columns "
                + names
                + "; route one of them to another table (or rename it with a RegexRouter"
                + " SMT)");
      }
      if (target.getFieldIndex(names.get(0)) < 0) {
        changes.add(SchemaChange.addColumn(names.get(0), DataTypes.BIGINT()));
        changes.add(SchemaChange.addColumn(names.get(1), DataTypes.BIGINT()));
        changes.add(SchemaChange.setOption(ownerKey(topic), topic));
      }
      Map<String, String> groupOf = membership(options);
      String own = groupKey(names);
      Set<String> members = new LinkedHashSet<>(splitMembers(options.get(own)));
      for (String column : mapping.columnByField().values()) {
        if (keys.contains(column) || column.startsWith(InternalColumns.PREFIX)) {
          continue;
        }
        String group = groupOf.get(column);
        if (group == null) {
          members.add(column);
        } else if (!group.equals(own)) {
          throw new RecordException(
              "Column '"
                  + column
                  + "' of wide table "
                  + table
                  + " belongs to another topic's sequence group ("
                  + group
                  + "), but records of topic '"
                  + topic
                  + "' carry it too: each value column of a table several topics feed"
                  + " must come from one topic, or their changes would undo each other's."
                  + " Drop or rename the field in this topic's records (e.g. the"
                  + " ReplaceField SMT), or route the topic to another table",
              column,
              null);
        }
      }
      if (!members.isEmpty() && !sameMembers(options.get(own), List.copyOf(members))) {
        changes.add(SchemaChange.setOption(own, String.join(",", members)));
      }
      return changes;
    };
  }

  /**
   * Positions of {@code topic}'s group sequence in {@code rowType}, or null when its rows carry
   * none (no groups, or a per-topic table the topic has not written yet).
   */
  static Columns columnsOf(Layout layout, RowType rowType, String topic) {
    if (layout instanceof OneTopic) {
      int[] sequence = SequenceColumns.indexesIn(rowType);
      return sequence == null ? null : new Columns(sequence[0], sequence[1]);
    }
    if (layout instanceof PerTopic) {
      List<String> names = sequenceNames(topic);
      int position = rowType.getFieldIndex(names.get(0));
      int offset = rowType.getFieldIndex(names.get(1));
      return position < 0 || offset < 0 ? null : new Columns(position, offset);
    }
    return null;
  }

  /**
   * Refuses a record of another topic than the one a one-topic table was created for: its changes
   * would take the whole row, NULLs for the first topic's columns included.
   */
  static void checkTopic(
      Layout layout,
      String topic,
      org.apache.paimon.catalog.Identifier table,
      String settingsName) {
    if (layout instanceof OneTopic one && !one.topic().equals(topic)) {
      throw new RecordException(
          "Table "
              + table.getFullName()
              + " was created for topic '"
              + one.topic()
              + "' alone (one sequence group over all its columns), and records of topic '"
              + topic
              + "' now route to it: they would overwrite the other topic's columns with NULL."
              + " Route the topic to another table; for one wide table fed by several topics,"
              + " route them with route.regex.rules or a static route.table.format (the table is"
              + " then created with a sequence group per topic) and set table."
              + settingsName
              + ".delete-policy=clear-columns or ignore");
    }
  }

  /** The two sequence columns of {@code topic}'s group in a per-topic table. */
  static List<String> sequenceNames(String topic) {
    String slug = topic.replaceAll("[^A-Za-z0-9_]", "_");
    return List.of(
        InternalColumns.PREFIX + slug + "_position", InternalColumns.PREFIX + slug + "_offset");
  }

  private static String ownerKey(String topic) {
    return TOPIC + "." + sequenceNames(topic).get(0);
  }

  private static String groupKey(List<String> sequence) {
    return "fields." + String.join(",", sequence) + GROUP_SUFFIX;
  }

  /** Non-key columns the source sends (not the sink's internal ones), in table order. */
  private static List<String> valueColumns(RowType rowType, List<String> keys) {
    return rowType.getFieldNames().stream()
        .filter(name -> !keys.contains(name) && !name.startsWith(InternalColumns.PREFIX))
        .toList();
  }

  /** Group option key per member column. */
  private static Map<String, String> membership(Map<String, String> options) {
    Map<String, String> groupOf = new HashMap<>();
    options.forEach(
        (key, value) -> {
          if (key.startsWith("fields.") && key.endsWith(GROUP_SUFFIX)) {
            splitMembers(value).forEach(member -> groupOf.put(member, key));
          }
        });
    return groupOf;
  }

  private static List<String> splitMembers(String value) {
    if (value == null || value.isBlank()) {
      return List.of();
    }
    return java.util.Arrays.stream(value.split(",")).map(String::trim).toList();
  }

  private static boolean sameMembers(String current, List<String> wanted) {
    return Set.copyOf(splitMembers(current)).equals(Set.copyOf(wanted));
  }
}
