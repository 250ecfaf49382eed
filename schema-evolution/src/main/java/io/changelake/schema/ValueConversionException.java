package io.changelake.schema;

import org.apache.kafka.connect.data.Schema;
import org.apache.paimon.types.DataType;

/** A record value that cannot be written to its column without losing or corrupting it. */
public class ValueConversionException extends RuntimeException {

  private final String field;
  private final transient Schema connectSchema;
  private final DataType targetType;

  public ValueConversionException(
      String field, Schema connectSchema, DataType targetType, String reason, Throwable cause) {
    super(message(field, connectSchema, targetType, reason), cause);
    this.field = field;
    this.connectSchema = connectSchema;
    this.targetType = targetType;
  }

  public ValueConversionException(
      String field, Schema connectSchema, DataType targetType, String reason) {
    this(field, connectSchema, targetType, reason, null);
  }

  /** Path of the field in the record, nested fields joined with dots. */
  public String field() {
    return field;
  }

  public Schema connectSchema() {
    return connectSchema;
  }

  public DataType targetType() {
    return targetType;
  }

  static String describe(Schema schema) {
    if (schema == null) {
      return "<no schema>";
    }
    StringBuilder b = new StringBuilder(schema.type().toString());
    if (schema.name() != null) {
      b.append(' ').append(schema.name());
    }
    if (schema.parameters() != null && !schema.parameters().isEmpty()) {
      b.append(' ').append(schema.parameters());
    }
    b.append(schema.isOptional() ? " (optional)" : " (required)");
    return b.toString();
  }

  private static String message(
      String field, Schema connectSchema, DataType targetType, String reason) {
    return "Cannot convert field '"
        + field
        + "' of Connect schema "
        + describe(connectSchema)
        + " to Paimon type "
        + targetType
        + ": "
        + reason;
  }
}
