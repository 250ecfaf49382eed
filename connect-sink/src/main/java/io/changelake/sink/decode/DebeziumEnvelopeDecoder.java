package io.changelake.sink.decode;

import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.schema.debezium.EnvelopeFields;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/** Decodes Debezium change envelopes: {@code op}, {@code before}, {@code after}, {@code source}. */
public final class DebeziumEnvelopeDecoder implements EnvelopeDecoder {
  private final SourceBlocks blocks = new SourceBlocks();

  /** True when the value schema is a Debezium envelope. */
  public static boolean isEnvelope(Schema valueSchema) {
    if (valueSchema == null || valueSchema.type() != Schema.Type.STRUCT) {
      return false;
    }
    if (EnvelopeFields.isEnvelopeName(valueSchema.name())) {
      return true;
    }
    return valueSchema.field(EnvelopeFields.OP) != null
        && (valueSchema.field(EnvelopeFields.AFTER) != null
            || valueSchema.field(EnvelopeFields.BEFORE) != null);
  }

  @Override
  public ChangeEvent decode(SinkRecord record, Origin origin) {
    if (record.value() == null) {
      return new ChangeEvent.Tombstone(origin);
    }
    if (!(record.value() instanceof Struct value) || !isEnvelope(value.schema())) {
      throw new DecodingException(
          "The value is not a Debezium change envelope (a struct with op, before, after and"
              + " source); flattened rows need input.format=flattened or auto, and the value"
              + " converter must produce structs (JsonConverter with schemas.enable=true, Avro)");
    }
    Object opValue = SourceBlocks.get(value, EnvelopeFields.OP);
    if (!(opValue instanceof String op)) {
      throw new DecodingException("The envelope has no 'op' value");
    }
    DebeziumOp operation;
    try {
      operation = DebeziumOp.fromCode(op);
    } catch (IllegalArgumentException e) {
      throw new DecodingException(e.getMessage());
    }
    Struct sourceBlock =
        SourceBlocks.get(value, EnvelopeFields.SOURCE) instanceof Struct s ? s : null;
    Function<String, Object> field =
        sourceBlock == null ? null : name -> SourceBlocks.get(sourceBlock, name);
    SourceInfo source =
        field == null
            ? SourceInfo.none(origin.timestamp())
            : blocks.read(field, field, origin.timestamp(), operation == DebeziumOp.READ);
    if (operation == DebeziumOp.TRUNCATE) {
      return new ChangeEvent.Truncate(
          origin,
          source,
          field == null
              ? List.of(source.position())
              : SourceBlocks.positions(field, origin.timestamp()));
    }
    Struct before = SourceBlocks.get(value, EnvelopeFields.BEFORE) instanceof Struct b ? b : null;
    Struct after = SourceBlocks.get(value, EnvelopeFields.AFTER) instanceof Struct a ? a : null;
    if (operation == DebeziumOp.DELETE
        ? before == null && !(record.key() instanceof Struct)
        : after == null) {
      throw new DecodingException(
          "A '"
              + op
              + "' event without "
              + (operation == DebeziumOp.DELETE ? "'before' or a struct key" : "'after'"));
    }
    Struct key = record.key() instanceof Struct k ? k : null;
    return new ChangeEvent.RowChange(origin, operation, key, before, after, source);
  }
}
