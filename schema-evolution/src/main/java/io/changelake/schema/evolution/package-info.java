/**
 * Following source schema changes in Paimon tables: {@link
 * io.changelake.schema.evolution.EvolutionPlanner} compares a record schema with a table schema and
 * produces an {@link io.changelake.schema.evolution.EvolutionPlan} under an {@link
 * io.changelake.schema.evolution.EvolutionPolicy}; {@link
 * io.changelake.schema.evolution.SchemaEvolver} applies it through the catalog, safely when several
 * tasks race; {@link io.changelake.schema.evolution.SchemaHistory} lists what was applied.
 */
package io.changelake.schema.evolution;
