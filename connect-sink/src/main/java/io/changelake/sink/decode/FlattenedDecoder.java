package io.changelake.sink.decode;

import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.schema.debezium.EnvelopeFields;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Decodes rows flattened by Debezium's {@code ExtractNewRecordState}. Metadata it adds (every field
 * starting with {@code __}, e.g. {@code __op}, {@code __deleted}, {@code __lsn}, {@code
 * __source_ts_ms}) is read and left out of the row. A tombstone with a struct key is a delete: that
 * is how ExtractNewRecordState passes deletes on unless told to rewrite them.
 *
 * <p>A Debezium envelope (value schema named {@code *.Envelope}) is decoded as one: the transform
 * drops truncate events, so users let them pass unflattened with the {@code IsTruncate} predicate.
 */
public final class FlattenedDecoder implements EnvelopeDecoder {
  static final String METADATA_PREFIX = EnvelopeFields.FLATTENED_PREFIX;
  private static final int SCHEMA_CACHE_SIZE = 256;

  private final DebeziumEnvelopeDecoder envelopes = new DebeziumEnvelopeDecoder();
  private final String opField;
  private final String deletedField;
  private final Map<Schema, Schema> rowSchemas =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Schema, Schema> eldest) {
          return size() > SCHEMA_CACHE_SIZE;
        }
      };

  public FlattenedDecoder(String opField, String deletedField) {
    this.opField = opField;
    this.deletedField = deletedField;
  }

  @Override
  public ChangeEvent decode(SinkRecord record, Origin origin) {
    if (record.value() == null) {
      // ExtractNewRecordState's default turns deletes into tombstones: with a key, it is a delete
      if (record.key() instanceof Struct key) {
        SourceInfo unknown =
            new SourceInfo(
                java.util.Optional.empty(),
                java.util.Optional.empty(),
                java.util.Optional.empty(),
                SourcePosition.unknown());
        return new ChangeEvent.RowChange(origin, DebeziumOp.DELETE, key, null, null, unknown);
      }
      return new ChangeEvent.Tombstone(origin);
    }
    if (!(record.value() instanceof Struct value)) {
      throw new DecodingException(
          "The value is not a struct; the value converter must produce structs (JsonConverter"
              + " with schemas.enable=true, Avro)");
    }
    if (EnvelopeFields.isEnvelopeName(value.schema().name())) {
      return envelopes.decode(record, origin);
    }
    Function<String, Object> metadata =
        name -> {
          Object own = SourceBlocks.get(value, METADATA_PREFIX + name);
          return own != null
              ? own
              : SourceBlocks.get(value, EnvelopeFields.FLATTENED_SOURCE_PREFIX + name);
        };
    Object opValue = SourceBlocks.get(value, opField);
    // add.fields=ts_ms gives __ts_ms, Debezium's processing time: only source.ts_ms tells a resend
    Function<String, Object> sourceOnly =
        name ->
            name.equals(EnvelopeFields.Source.TS_MS)
                ? SourceBlocks.get(
                    value, EnvelopeFields.FLATTENED_SOURCE_PREFIX + EnvelopeFields.Source.TS_MS)
                : metadata.apply(name);
    SourceInfo source =
        SourceBlocks.read(
            metadata, sourceOnly, origin.timestamp(), DebeziumOp.READ.code().equals(opValue));
    if (DebeziumOp.TRUNCATE.code().equals(opValue)) {
      return new ChangeEvent.Truncate(
          origin, source, SourceBlocks.positions(metadata, origin.timestamp()));
    }
    Object deleted = SourceBlocks.get(value, deletedField);
    boolean isDelete =
        DebeziumOp.DELETE.code().equals(opValue)
            || Boolean.TRUE.equals(deleted)
            || (deleted instanceof String s && Boolean.parseBoolean(s));
    DebeziumOp op;
    try {
      op =
          isDelete
              ? DebeziumOp.DELETE
              : opValue instanceof String s ? DebeziumOp.fromCode(s) : DebeziumOp.UPDATE;
    } catch (IllegalArgumentException e) {
      throw new DecodingException(e.getMessage() + " in field '" + opField + "'");
    }
    Struct row = rowOf(value);
    Struct key = record.key() instanceof Struct k ? k : null;
    return new ChangeEvent.RowChange(
        origin, op, key, isDelete ? row : null, isDelete ? null : row, source);
  }

  private Struct rowOf(Struct value) {
    Schema rowSchema =
        rowSchemas.computeIfAbsent(value.schema(), FlattenedDecoder::withoutMetadata);
    if (rowSchema == value.schema()) {
      return value;
    }
    Struct row = new Struct(rowSchema);
    for (Field f : rowSchema.fields()) {
      row.put(f.name(), value.get(f.name()));
    }
    return row;
  }

  private static Schema withoutMetadata(Schema schema) {
    boolean hasMetadata =
        schema.fields().stream().anyMatch(f -> f.name().startsWith(METADATA_PREFIX));
    if (!hasMetadata) {
      return schema;
    }
    SchemaBuilder builder = SchemaBuilder.struct().name(schema.name()).version(schema.version());
    if (schema.isOptional()) {
      builder.optional();
    }
    for (Field f : schema.fields()) {
      if (!f.name().startsWith(METADATA_PREFIX)) {
        builder.field(f.name(), f.schema());
      }
    }
    return builder.build();
  }
}
