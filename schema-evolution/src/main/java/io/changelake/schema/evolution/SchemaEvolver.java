package io.changelake.schema.evolution;

import org.apache.kafka.connect.data.Schema;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies evolution plans through a Paimon catalog. Safe when several tasks (in this or other JVMs,
 * each with its own catalog) see the same change at once: it re-reads the table schema, re-plans,
 * applies only what is still missing and retries when the schema moved underneath it; all of them
 * succeed with one resulting schema. Cached table metadata is invalidated afterwards ({@link
 * Catalog#invalidateTable}). Every applied step is logged at INFO.
 *
 * <p>Paimon applies an altered schema to new writers only: after a {@link EvolutionResult#changed()
 * change} (or whenever the returned row type differs from the writer's) the caller reopens its
 * writers.
 */
public final class SchemaEvolver {

  private static final Logger LOG = LoggerFactory.getLogger(SchemaEvolver.class);

  private final EvolutionPlanner planner = new EvolutionPlanner();

  /**
   * Brings {@code table} to a schema that can hold records of {@code incoming}.
   *
   * @throws SchemaEvolutionException for a refused change
   * @throws org.apache.paimon.catalog.Catalog.TableNotExistException if the table does not exist
   */
  public EvolutionResult evolve(
      Catalog catalog, Identifier table, Schema incoming, EvolutionPolicy policy)
      throws Catalog.TableNotExistException {
    return evolve(catalog, table, incoming, null, policy);
  }

  /** As {@link #evolve(Catalog, Identifier, Schema, EvolutionPolicy)}, checking the record key. */
  public EvolutionResult evolve(
      Catalog catalog,
      Identifier table,
      Schema incoming,
      Schema incomingKey,
      EvolutionPolicy policy)
      throws Catalog.TableNotExistException {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }
}
