package io.changelake.e2e.bench;

import io.changelake.e2e.registry.ApicurioRegistry;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Connector configs of the sinks compared, each as a user would write it. */
final class Sinks {

  /** The value/key converter a case uses. */
  enum Converter {
    JSON("json", "org.apache.kafka.connect.json.JsonConverter"),
    CACHING("caching-json", "io.changelake.sink.converter.CachingJsonConverter"),
    /** Apicurio's AvroConverter in Confluent's wire format; needs {@link #useRegistry}. */
    AVRO("avro", ApicurioRegistry.AVRO_CONVERTER);

    final String label;
    final String className;

    Converter(String label, String className) {
      this.label = label;
      this.className = className;
    }
  }

  /** The sinks compared. */
  enum Kind {
    DO_NOTHING("do-nothing"),
    CHANGELAKE("changelake"),
    ICEBERG("iceberg"),
    /** The Changelake sink into a partial-update table (measured for 1 task, 1 table). */
    CHANGELAKE_PARTIAL("changelake-partial"),
    /**
     * The Changelake sink writing level-0 files (all the ingest writers write) as Avro, the
     * compactor rewriting them to Parquet (measured for 1 task, 1 table).
     */
    CHANGELAKE_L0_AVRO("changelake-l0-avro");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  private static Map<String, String> avroConverters;

  private Sinks() {}

  /** The registry the {@link Converter#AVRO} cases use. */
  static void useRegistry(ApicurioRegistry registry) {
    avroConverters = registry.avroConverters();
  }

  static Map<String, String> common(String topicsRegex, int tasks, Converter converter) {
    Map<String, String> c = new HashMap<>();
    c.put("tasks.max", String.valueOf(tasks));
    c.put("topics.regex", topicsRegex);
    if (converter == Converter.AVRO) {
      if (avroConverters == null) {
        throw new IllegalStateException("Avro cases need a registry: call Sinks.useRegistry");
      }
      c.putAll(avroConverters);
      return c;
    }
    c.put("key.converter", converter.className);
    c.put("key.converter.schemas.enable", "true");
    c.put("value.converter", converter.className);
    c.put("value.converter.schemas.enable", "true");
    return c;
  }

  static Map<String, String> doNothing(String topicsRegex, int tasks, Converter converter) {
    Map<String, String> c = common(topicsRegex, tasks, converter);
    c.put("connector.class", DoNothingSinkConnector.class.getName());
    return c;
  }

  /**
   * Changelake into primary-key tables named after Debezium's source table, in the given merge
   * engine, committing every {@code commitIntervalMs}. The table is named by the topic alone
   * ({@code <server>.public.<table>}), as the sink's default {@code ${topic}} does, so a partition
   * handed to another task reads on from where its table stands.
   */
  static Map<String, String> changelake(
      String topicsRegex,
      int tasks,
      Converter converter,
      Path warehouse,
      long commitIntervalMs,
      String mergeEngine) {
    Map<String, String> c = common(topicsRegex, tasks, converter);
    c.put("connector.class", "io.changelake.sink.ChangelakeSinkConnector");
    c.put("paimon.warehouse", warehouse.toUri().toString());
    c.put("route.database", "bench");
    c.put("route.regex.rules", "[^.]+\\.public\\.(.*)=>$1");
    c.put("table.merge-engine", mergeEngine);
    c.put("commit.interval.ms", String.valueOf(commitIntervalMs));
    c.putAll(extraSinkSettings());
    return c;
  }

  /**
   * Settings added to every Changelake sink of a run, to compare one against the defaults in the
   * same harness: {@code -Dbench.sink.settings=commit.threads=1,commit.buffer.bytes=...}.
   */
  static Map<String, String> extraSinkSettings() {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (String pair : System.getProperty("bench.sink.settings", "").split(",")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        out.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
      }
    }
    return out;
  }

  /**
   * Iceberg's sink appending the change events as they are (it does not apply updates or deletes),
   * one table per source table, tables created from the first record, the Hadoop catalog on local
   * disk, committing every {@code commitIntervalMs}.
   */
  static Map<String, String> iceberg(
      String bootstrapServers,
      String topicsRegex,
      int tasks,
      Converter converter,
      Path warehouse,
      String controlTopic,
      int tables,
      long commitIntervalMs) {
    Map<String, String> c = common(topicsRegex, tasks, converter);
    c.put("connector.class", "org.apache.iceberg.connect.IcebergSinkConnector");
    StringBuilder names = new StringBuilder();
    for (int t = 0; t < tables; t++) {
      String table = "bench." + DebeziumEvents.tableName(t);
      names.append(t == 0 ? "" : ",").append(table);
      c.put("iceberg.table." + table + ".route-regex", DebeziumEvents.tableName(t));
    }
    c.put("iceberg.tables", names.toString());
    c.put("iceberg.tables.route-field", "source.table");
    c.put("iceberg.tables.auto-create-enabled", "true");
    c.put("iceberg.catalog.catalog-impl", "org.apache.iceberg.hadoop.HadoopCatalog");
    c.put("iceberg.catalog.warehouse", warehouse.toUri().toString());
    c.put("iceberg.control.topic", controlTopic);
    // Iceberg reads the worker's bootstrap servers from the worker's properties file, which an
    // embedded worker does not have
    c.put("iceberg.kafka.bootstrap.servers", bootstrapServers);
    c.put("iceberg.control.commit.interval-ms", String.valueOf(commitIntervalMs));
    return c;
  }
}
