package io.changelake.sink.decode;

import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.schema.debezium.EnvelopeFields;
import io.changelake.schema.debezium.EnvelopeFields.Source;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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
  private final SourceBlocks blocks = new SourceBlocks();
  private final String opField;
  private final String deletedField;
  private final Map<Schema, Schema> rowSchemas =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Schema, Schema> eldest) {
          return size() > SCHEMA_CACHE_SIZE;
        }
      };

  // the value schema of the record before and its row schema: most records carry the very schema
  // instance of the record before, and the map's lookup hashes the schema, field by field
  private Schema lastValueSchema;
  private Schema lastRowSchema;

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
          Object own = SourceBlocks.get(value, MetadataNames.own(name));
          return own != null ? own : SourceBlocks.get(value, MetadataNames.ofSource(name));
        };
    Object opValue = SourceBlocks.get(value, opField);
    // add.fields=ts_ms gives __ts_ms, Debezium's processing time: only source.ts_ms tells a resend
    Function<String, Object> sourceOnly =
        name ->
            name.equals(EnvelopeFields.Source.TS_MS)
                ? SourceBlocks.get(value, MetadataNames.ofSource(EnvelopeFields.Source.TS_MS))
                : metadata.apply(name);
    SourceInfo source =
        blocks.read(
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
    if (value.schema() != lastValueSchema) {
      lastRowSchema = rowSchemas.computeIfAbsent(value.schema(), FlattenedDecoder::withoutMetadata);
      lastValueSchema = value.schema();
    }
    Schema rowSchema = lastRowSchema;
    if (rowSchema == value.schema()) {
      return value;
    }
    Struct row = new Struct(rowSchema);
    for (Field f : rowSchema.fields()) {
      row.put(f, value.get(f.name()));
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

  /**
   * The names ExtractNewRecordState gives the source fields the decoder reads ({@code __lsn},
   * {@code __source_ts_ms}, ...), joined once: they are looked up about ten times per record.
   */
  private static final class MetadataNames {
    private static final List<String> READ =
        List.of(
            Source.NAME,
            Source.TS_MS,
            Source.SNAPSHOT,
            Source.DB,
            Source.SCHEMA,
            Source.TABLE,
            Source.LSN,
            Source.SEQUENCE,
            Source.FILE,
            Source.POS);
    private static final Map<String, String> OWN = prefixed(METADATA_PREFIX);
    private static final Map<String, String> OF_SOURCE =
        prefixed(EnvelopeFields.FLATTENED_SOURCE_PREFIX);

    /** {@code __<name>}. */
    static String own(String name) {
      String prefixed = OWN.get(name);
      return prefixed != null ? prefixed : METADATA_PREFIX + name;
    }

    /** {@code __source_<name>} ({@code add.fields=source.<name>}). */
    static String ofSource(String name) {
      String prefixed = OF_SOURCE.get(name);
      return prefixed != null ? prefixed : EnvelopeFields.FLATTENED_SOURCE_PREFIX + name;
    }

    private static Map<String, String> prefixed(String prefix) {
      Map<String, String> names = new HashMap<>();
      READ.forEach(name -> names.put(name, prefix + name));
      return Map.copyOf(names);
    }
  }
}
