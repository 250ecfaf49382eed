package io.changelake.source.record;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * Fills structs of the schemas this source builds without Connect's validation of every value.
 * {@code Struct.put} checks each value against its field's schema and builds the field's label for
 * an error message that is never thrown (a string per value: a few dozen per record). The values
 * here are made for exactly these schemas ({@code ConnectMapping.valueOf} beside {@code
 * ConnectMapping.structOf}; {@code ConvertedSourceRecordsTest} validates every record of every
 * column type), so only the check a null value needs is kept: a null for a required field still
 * goes through {@code put} and fails there as before.
 *
 * <p>Where the struct's value array cannot be reached (a Kafka version that renamed it), every
 * value goes through {@code put}: slower, the same structs.
 */
final class UncheckedStructs {
  private static final MethodHandle VALUES = valuesOfStruct();

  private UncheckedStructs() {}

  /** Sets {@code field} of {@code struct}, a struct of one of this source's schemas. */
  static void put(Struct struct, Field field, Object value) {
    put(struct, values(struct), field, value);
  }

  /**
   * Sets {@code field} of {@code struct}, whose value array {@link #values} returned (null: not
   * reachable), for structs filled field by field.
   */
  static void put(Struct struct, Object[] values, Field field, Object value) {
    if (values == null || (value == null && !field.schema().isOptional())) {
      struct.put(field, value);
    } else {
      values[field.index()] = value;
    }
  }

  /** The value array of {@code struct}, or null where it cannot be reached. */
  static Object[] values(Struct struct) {
    if (VALUES == null) {
      return null;
    }
    try {
      return (Object[]) VALUES.invokeExact(struct);
    } catch (Throwable e) {
      return null;
    }
  }

  private static MethodHandle valuesOfStruct() {
    try {
      java.lang.reflect.Field values = Struct.class.getDeclaredField("values");
      if (values.getType() != Object[].class) {
        return null;
      }
      values.setAccessible(true);
      return MethodHandles.lookup().unreflectGetter(values);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
