package io.changelake.schema;

/** Converts one non-null Connect value into Paimon's internal representation of its column. */
@FunctionalInterface
interface ValueConverter {
  Object convert(Object value);
}
