/**
 * The options vocabulary both connectors (and {@link
 * io.changelake.schema.evolution.EvolutionPolicy}) define their {@code ConfigDef}s with: enums that
 * describe themselves ({@link io.changelake.schema.config.ConfigEnum}), one helper yielding the
 * validator, recommender and definition of an enum option ({@link
 * io.changelake.schema.config.EnumOption}), keys defined group by group ({@link
 * io.changelake.schema.config.OptionGroup}) and declared per-table key families ({@link
 * io.changelake.schema.config.PerTableKeys}), and the catalog and retry keys both connectors share
 * ({@link io.changelake.schema.config.LakeOptions}, from lsm-writer's names and texts).
 *
 * <p>It lives in schema-evolution because that is the one module both connectors depend on that
 * already compiles against Kafka's {@code ConfigDef} (for {@code schema.evolution.*}); lsm-writer
 * knows no Kafka types, and connect-metrics is about metrics.
 */
package io.changelake.schema.config;
