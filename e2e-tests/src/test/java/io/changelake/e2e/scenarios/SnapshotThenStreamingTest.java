package io.changelake.e2e.scenarios;

import io.changelake.e2e.fixtures.AllTypesTable;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Scenario 1: rows present before Debezium starts (snapshot, op=r) and rows inserted afterwards
 * (streaming, op=c) arrive in the Paimon table with every value of every listed PostgreSQL type
 * intact.
 */
class SnapshotThenStreamingTest extends PipelineTestBase {

  @Test
  void everyTypeSurvivesSnapshotAndStreaming() {
    createDatabase("s1");
    AllTypesTable.create(pg, "s1");
    AllTypesTable.insert(pg, "s1", 1, 60);

    startPipeline("s1", "public." + AllTypesTable.TABLE, Map.of());
    awaitLakeEqualsDatabase("s1", AllTypesTable.TABLE);

    AllTypesTable.insert(pg, "s1", 61, 140);
    pg.execute(
        "s1",
        // a streamed update touching every column type, and one back to NULLs
        "UPDATE all_types SET c_text = c_text || ' updated', c_numeric = -c_numeric,"
            + " c_int_array = c_int_array || 42, c_jsonb = c_jsonb || '{\"u\": 1}'"
            + " WHERE id % 10 = 3",
        "UPDATE all_types SET c_timestamptz = NULL, c_bytea = NULL WHERE id = 61");
    awaitLakeEqualsDatabase("s1", AllTypesTable.TABLE);
  }
}
