package io.changelake.lsm.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.TestTables;
import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffsetFallbackStoreTest {
  @TempDir Path dir;

  @Test
  void entriesMergePerUserAndTheNewestSnapshotWinsAcrossUsers() throws Exception {
    SourcePartition p0 = new SourcePartition("a.b", 0);
    SourcePartition p1 = new SourcePartition("a.b", 1);
    try (Catalog catalog = TestTables.localCatalog(dir)) {
      FileStoreTable table = LakeTables.createOrOpen(catalog, TestTables.spec("db", "t", 1));
      OffsetFallbackStore store = new OffsetFallbackStore(table);
      store.record("sink-0", 1, Map.of(p0, 10L, p1, 20L));
      store.record("sink-1", 2, Map.of(p1, 30L));
      store.record("sink-0", 3, Map.of(p0, 11L));
      store.record("other-0", 9, Map.of(p0, 99L));

      assertThat(store.read("sink-0"))
          .isEqualTo(
              Map.of(
                  p0, new OffsetFallbackStore.Entry(11L, 3),
                  p1, new OffsetFallbackStore.Entry(20L, 1)));
      assertThat(store.users("sink-")).containsExactlyInAnyOrder("sink-0", "sink-1");
      assertThat(store.newest("sink-"))
          .isEqualTo(
              Map.of(
                  p0, new OffsetFallbackStore.Entry(11L, 3),
                  p1, new OffsetFallbackStore.Entry(30L, 2)));
    }
  }
}
