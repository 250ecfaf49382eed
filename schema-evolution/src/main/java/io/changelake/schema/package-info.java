/**
 * Kafka Connect / Debezium schemas to Paimon types and rows.
 *
 * <p>{@link io.changelake.schema.TypeMapping} decides the Paimon type of every Connect schema
 * (Debezium semantic types included), {@link io.changelake.schema.RowConverter} turns Connect
 * {@code Struct}s into Paimon rows of a given table schema. Schema evolution lives in {@link
 * io.changelake.schema.evolution}.
 */
package io.changelake.schema;
