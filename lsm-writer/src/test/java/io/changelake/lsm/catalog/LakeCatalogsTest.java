package io.changelake.lsm.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LakeCatalogsTest {
  @TempDir Path dir;

  @Test
  void aLocalWarehouseIsConfiguredFromPrefixedConnectorProperties() throws Exception {
    Path warehouse = dir.resolve("lake");
    Map<String, String> props =
        Map.of(
            "paimon.warehouse", warehouse.toString(),
            "paimon.cache-enabled", "false",
            "topics", "not.a.catalog.option");

    assertThat(LakeCatalogs.catalogOptions(props))
        .isEqualTo(Map.of("warehouse", warehouse.toString(), "cache-enabled", "false"));
    try (Catalog catalog = LakeCatalogs.open(props)) {
      LakeTables.createOrOpen(catalog, TestTables.spec("db", "t", 1));
      assertThat(catalog.listTables("db")).containsExactly("t");
      assertThat(catalog.getTable(Identifier.create("db", "t"))).isNotNull();
    }
    assertThat(Files.isDirectory(warehouse.resolve("db.db/t/schema"))).isTrue();
  }

  @Test
  void aMissingWarehouseSaysWhatToSet() {
    assertThatThrownBy(() -> LakeCatalogs.open(Map.of("paimon.s3.endpoint", "http://x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("paimon.warehouse");
  }

  @Test
  void anUnknownMetastoreNamesTheWarehouseAndTheOptions() {
    assertThatThrownBy(
            () ->
                LakeCatalogs.open(
                    Map.of(
                        "paimon.warehouse", dir.toString(), "paimon.metastore", "no-such-store")))
        .hasMessageContaining(dir.toString())
        .hasMessageContaining("paimon.*");
  }
}
