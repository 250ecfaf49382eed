package io.changelake.e2e.compare;

import io.changelake.lsm.testing.LakeTableReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * The changelog of a Paimon table as a streaming reader (Flink, the changelog source) sees it, from
 * the table's earliest snapshot to its latest, in snapshot order: every {@code +I}, {@code -U},
 * {@code +U} and {@code -D} with its row (values as {@link LakeTableReader} reads them). Complete
 * only while nothing has expired a snapshot of the table.
 */
public final class LakeChangelog {
  private LakeChangelog() {}

  /** One change: its kind and row. */
  public record Change(RowKind kind, Map<String, Object> row) {}

  /**
   * What replaying a changelog key by key gives: the rows it ends with, every change that does not
   * chain onto its key's previous state, and how many {@code -U/+U} pairs it held.
   */
  public record Replay(List<Map<String, Object>> rows, List<String> problems, int updatePairs) {}

  /**
   * Replays {@code changes} keyed by {@code key}: a {@code +I} only for an absent key, a {@code -U}
   * only with exactly the key's last state (the platform's {@code _changelake_*} columns aside) and
   * directly followed by the key's {@code +U}, a {@code -D} only of the last state.
   */
  public static Replay replay(List<Change> changes, List<String> key) {
    Map<List<Object>, Map<String, Object>> state = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    int pairs = 0;
    for (int i = 0; i < changes.size(); i++) {
      Change c = changes.get(i);
      List<Object> k = key.stream().map(c.row()::get).toList();
      Map<String, Object> last = state.get(k);
      switch (c.kind()) {
        case INSERT -> {
          if (last != null) {
            problems.add("+I " + c.row() + " of a present key, last " + last);
          }
          state.put(k, c.row());
        }
        case UPDATE_BEFORE -> {
          Change next = i + 1 < changes.size() ? changes.get(i + 1) : null;
          if (last == null || !userColumns(last).equals(userColumns(c.row()))) {
            problems.add("-U " + c.row() + " is not the last state " + last);
          }
          if (next == null
              || next.kind() != RowKind.UPDATE_AFTER
              || !key.stream().map(next.row()::get).toList().equals(k)) {
            problems.add("-U " + c.row() + " not followed by its +U");
          } else {
            pairs++;
          }
        }
        case UPDATE_AFTER -> {
          Change before = i > 0 ? changes.get(i - 1) : null;
          if (last == null || before == null || before.kind() != RowKind.UPDATE_BEFORE) {
            problems.add("+U " + c.row() + " without its -U, last " + last);
          }
          state.put(k, c.row());
        }
        case DELETE -> {
          if (last == null || !userColumns(last).equals(userColumns(c.row()))) {
            problems.add("-D " + c.row() + " is not the last state " + last);
          }
          state.remove(k);
        }
      }
    }
    return new Replay(List.copyOf(state.values()), problems, pairs);
  }

  private static Map<String, Object> userColumns(Map<String, Object> row) {
    Map<String, Object> out = new LinkedHashMap<>(row);
    out.keySet().removeIf(name -> name.startsWith("_changelake_"));
    // byte[] compares by identity: compare its content
    out.replaceAll((n, v) -> v instanceof byte[] b ? java.util.HexFormat.of().formatHex(b) : v);
    return out;
  }

  /** Every change of {@code database.table} up to its latest snapshot now. */
  public static List<Change> read(
      Map<String, String> catalogOptions, String database, String table) {
    Map<String, String> options = new HashMap<>(catalogOptions);
    options.put("cache-enabled", "false");
    try (Catalog catalog =
        CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(options)))) {
      FileStoreTable t = (FileStoreTable) catalog.getTable(Identifier.create(database, table));
      Long earliest = t.snapshotManager().earliestSnapshotId();
      Long latest = t.snapshotManager().latestSnapshotId();
      if (earliest == null) {
        return List.of();
      }
      FileStoreTable from =
          t.copy(
              Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", String.valueOf(earliest)));
      RowType rowType = from.rowType();
      List<InternalRow.FieldGetter> getters = new ArrayList<>();
      for (int i = 0; i < rowType.getFieldCount(); i++) {
        getters.add(InternalRow.createFieldGetter(rowType.getTypeAt(i), i));
      }
      ReadBuilder rb = from.newReadBuilder();
      StreamTableScan scan = rb.newStreamScan();
      List<Change> changes = new ArrayList<>();
      // the scan's position is the next snapshot to read: stop once it is past the latest
      long plans = 0;
      while (scan.checkpoint() == null || scan.checkpoint() <= latest) {
        if (++plans > latest - earliest + 10) {
          throw new IllegalStateException(
              "the stream scan of "
                  + database
                  + "."
                  + table
                  + " does not reach snapshot "
                  + latest);
        }
        TableScan.Plan plan = scan.plan();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(plan.splits())) {
          reader.forEachRemaining(
              row -> {
                Map<String, Object> values = new LinkedHashMap<>();
                for (int i = 0; i < rowType.getFieldCount(); i++) {
                  DataField f = rowType.getFields().get(i);
                  values.put(
                      f.name(),
                      LakeTableReader.toJava(f.type(), getters.get(i).getFieldOrNull(row)));
                }
                changes.add(new Change(row.getRowKind(), values));
              });
        }
      }
      return changes;
    } catch (Catalog.TableNotExistException e) {
      throw new LakeTableReader.TableMissing(database + "." + table);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the changelog of " + database + "." + table, e);
    }
  }
}
