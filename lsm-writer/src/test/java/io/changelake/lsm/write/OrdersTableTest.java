package io.changelake.lsm.write;

import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.TestTables;
import java.nio.file.Path;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The set-up the writer tests share: a local warehouse in a fresh folder holding table {@code
 * shop.orders} ({@link TestTables#spec}), small writer pools on it, and the table as Paimon reads
 * it.
 */
abstract class OrdersTableTest {
  @TempDir Path dir;
  Catalog catalog;
  final Identifier orders = Identifier.create("shop", "orders");

  /** Buckets of {@code shop.orders}. */
  int buckets() {
    return 2;
  }

  @BeforeEach
  void createOrders() {
    catalog = TestTables.localCatalog(dir.resolve("warehouse"));
    LakeTables.createOrOpen(catalog, TestTables.spec("shop", "orders", buckets()));
  }

  @AfterEach
  void closeCatalog() throws Exception {
    catalog.close();
  }

  WriterPool pool(String user) {
    return TestTables.smallPool(catalog, dir, user);
  }

  FileStoreTable table() {
    return LakeTables.open(catalog, orders);
  }
}
