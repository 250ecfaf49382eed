package io.changelake.e2e.scenarios;

import io.changelake.e2e.fixtures.AllTypesTable;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Scenario 1: rows present before Debezium starts (snapshot, op=r), rows inserted afterwards
 * (streaming, op=c) and streamed updates (op=u) arrive in the Paimon table with every value of
 * every listed PostgreSQL type intact and every column of the type {@code ExpectedLakeTypes} lists.
 * The updates set every column: one set to the upper extremes of the types (and an empty string, a
 * 4-byte character, an array with a NULL element), one to the lower extremes (and pre-1970 and far
 * future times, a 178-million-year interval, empty arrays), one back to NULL in every column.
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
        // streamed updates setting every column, to the extremes of its type and back
        "UPDATE all_types SET c_smallint = 32767, c_integer = -2147483648,"
            + " c_bigint = 9223372036854775807, c_numeric = -999999999.999,"
            + " c_numeric_free = '-0.00000000000000000000000000000000000001',"
            + " c_real = '3.4028235e38', c_double = '-1.7976931348623157e308',"
            + " c_text = '', c_varchar = repeat('é', 20), c_char = 'ü', c_boolean = NOT c_boolean,"
            + " c_date = '1900-01-01', c_time = '23:59:59.999999',"
            + " c_timestamp = '1900-01-01 00:00:00.000001',"
            + " c_timestamptz = '1969-12-31 23:59:59.999999+14',"
            + " c_interval = '-1 years -2 mons +3 days -04:05:06.000007',"
            + " c_uuid = 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',"
            + " c_json = '{\"a\": [1, {\"b\": null}], \"ü\": \"\\u00e9\"}', c_jsonb = '[]',"
            + " c_bytea = '\\x00', c_enum = 'happy', c_int_array = ARRAY[NULL, 2147483647],"
            + " c_text_array = ARRAY['', NULL, '😀']"
            + " WHERE id % 10 = 3",
        "UPDATE all_types SET c_smallint = -32768, c_integer = 2147483647,"
            + " c_bigint = -9223372036854775808, c_numeric = 999999999.999,"
            + " c_numeric_free = '99999999999999999999999999999999999999999.5',"
            + " c_real = '-1.17549435e-38', c_double = '2.2250738585072014e-308', c_text = repeat('𝄞', 3000),"
            + " c_varchar = '', c_char = '     ', c_date = '9999-12-31', c_time = '00:00:00',"
            + " c_timestamp = '9999-12-31 23:59:59.999999',"
            + " c_timestamptz = '9999-12-31 23:59:59.999999+00',"
            + " c_interval = '178000000 years', c_json = 'null', c_jsonb = '{}',"
            + " c_bytea = '', c_enum = 'sad', c_int_array = '{}', c_text_array = '{}'"
            + " WHERE id % 10 = 4",
        // and rows back to all NULL
        "UPDATE all_types SET c_smallint = NULL, c_integer = NULL, c_bigint = NULL,"
            + " c_numeric = NULL, c_numeric_free = NULL, c_real = NULL, c_double = NULL,"
            + " c_text = NULL, c_varchar = NULL, c_char = NULL, c_boolean = NULL, c_date = NULL,"
            + " c_time = NULL, c_timestamp = NULL, c_timestamptz = NULL, c_interval = NULL,"
            + " c_uuid = NULL, c_json = NULL, c_jsonb = NULL, c_bytea = NULL, c_enum = NULL,"
            + " c_int_array = NULL, c_text_array = NULL WHERE id % 10 = 5");
    awaitLakeEqualsDatabase("s1", AllTypesTable.TABLE);
  }
}
