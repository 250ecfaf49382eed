package io.changelake.source.record;

import io.changelake.schema.debezium.EnvelopeFields.Source;
import io.changelake.source.Versions;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * The {@code source} block of an envelope: where a change comes from. Field names follow Debezium's
 * ({@code connector}, {@code name}, {@code db}, {@code table}, {@code snapshot}) so {@code
 * ${source.db}}-style placeholders of Debezium consumers resolve.
 *
 * @param connectorName the Connect connector's name
 * @param database the Paimon database
 * @param table the Paimon table
 * @param snapshotId the Paimon snapshot the change belongs to
 * @param commitKind Paimon's commit kind of that snapshot
 * @param snapshot {@code true} during the full-state phase, {@code last} for its last row, else
 *     {@code false} (Debezium's values)
 */
public record SourceInfo(
    String connectorName,
    String database,
    String table,
    long snapshotId,
    String commitKind,
    String snapshot) {

  public static final String CONNECTOR = "changelake";

  public static final Schema SCHEMA =
      Source.schema("io.changelake.source.Source")
          .field(Source.SNAPSHOT, Schema.OPTIONAL_STRING_SCHEMA)
          .field(Source.DB, Schema.STRING_SCHEMA)
          .field(Source.TABLE, Schema.STRING_SCHEMA)
          .field("snapshot_id", Schema.INT64_SCHEMA)
          .field("commit_kind", Schema.STRING_SCHEMA)
          .build();

  Struct toStruct() {
    return new Struct(SCHEMA)
        .put(Source.VERSION, Versions.VERSION)
        .put(Source.CONNECTOR, CONNECTOR)
        .put(Source.NAME, connectorName)
        .put(Source.SNAPSHOT, snapshot)
        .put(Source.DB, database)
        .put(Source.TABLE, table)
        .put("snapshot_id", snapshotId)
        .put("commit_kind", commitKind);
  }
}
