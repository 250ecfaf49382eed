package io.changelake.schema.evolution;

import io.changelake.schema.evolution.SchemaEvolutionException.Refusal;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.data.Schema;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
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
 *
 * <p>Stateless and thread-safe.
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

  /** As {@link #evolve(Catalog, Identifier, Schema, Schema, EvolutionPolicy, CompanionChanges)}. */
  public EvolutionResult evolve(
      Catalog catalog,
      Identifier table,
      Schema incoming,
      Schema incomingKey,
      EvolutionPolicy policy)
      throws Catalog.TableNotExistException {
    return evolve(catalog, table, incoming, incomingKey, policy, CompanionChanges.NONE);
  }

  /**
   * As {@link #evolve(Catalog, Identifier, Schema, EvolutionPolicy)}, checking the record key, and
   * applying {@code companion}'s changes in the same ALTER as the planned ones (re-asked on every
   * attempt, against the schema that attempt planned on).
   */
  public EvolutionResult evolve(
      Catalog catalog,
      Identifier table,
      Schema incoming,
      Schema incomingKey,
      EvolutionPolicy policy,
      CompanionChanges companion)
      throws Catalog.TableNotExistException {
    List<SchemaChangeStep> applied = new ArrayList<>();
    Exception lastConflict = null;
    for (int attempt = 1; attempt <= policy.maxAttempts(); attempt++) {
      // never plan against a cached schema: another task may have evolved the table already
      catalog.invalidateTable(table);
      TableSchema schema = schemaOf(catalog.getTable(table), table);
      EvolutionPlan plan =
          planner.plan(
              table, schema.logicalRowType(), schema.primaryKeys(), incoming, incomingKey, policy);
      if (attempt == 1) {
        plan.ignored().forEach(reason -> LOG.warn("Table {}: {}", table.getFullName(), reason));
      }
      List<SchemaChange> extra =
          companion.changesFor(plan.target(), plan.fieldMapping(), schema.options());
      if (plan.isEmpty() && extra.isEmpty()) {
        return new EvolutionResult(applied, plan.target(), schema.id(), plan.fieldMapping());
      }
      List<SchemaChange> changes = new ArrayList<>();
      plan.steps().forEach(step -> changes.addAll(step.toSchemaChanges()));
      // one ALTER: a reader or writer never sees the new columns without what belongs to them
      changes.addAll(extra);
      try {
        catalog.alterTable(table, changes, false);
      } catch (Catalog.ColumnAlreadyExistException | Catalog.ColumnNotExistException e) {
        // another task changed the same columns between our read and our alter: re-plan
        lastConflict = e;
        LOG.debug("Table {}: concurrent schema change, re-planning", table.getFullName(), e);
        continue;
      } catch (RuntimeException e) {
        // Paimon reports some lost races (schema file written meanwhile) as runtime errors; if
        // nobody changed the schema, Paimon refused the change itself and retrying cannot help
        if (latestSchemaId(catalog, table) == schema.id()) {
          throw refusedByPaimon(table, plan, e);
        }
        lastConflict = e;
        LOG.debug("Table {}: schema change failed, re-planning", table.getFullName(), e);
        continue;
      } finally {
        catalog.invalidateTable(table);
      }
      for (SchemaChangeStep step : plan.steps()) {
        LOG.info("Table {}: schema evolved: {}", table.getFullName(), step.describe());
      }
      for (SchemaChange change : extra) {
        LOG.info("Table {}: with it: {}", table.getFullName(), describe(change));
      }
      applied.addAll(plan.steps());
    }
    throw new SchemaEvolutionException(
        new Refusal(
            table,
            String.join(", ", incoming.fields().stream().map(f -> f.name()).toList()),
            null,
            null,
            "Could not apply the schema change in "
                + policy.maxAttempts()
                + " attempts; last error: "
                + lastConflict,
            EvolutionPolicy.MAX_ATTEMPTS));
  }

  /** Paimon's schema changes have no text form of their own. */
  private static String describe(SchemaChange change) {
    if (change instanceof SchemaChange.SetOption set) {
      return "set option " + set.key() + "=" + set.value();
    }
    if (change instanceof SchemaChange.AddColumn add) {
      return "add column " + String.join(".", add.fieldNames()) + " " + add.dataType();
    }
    return change.getClass().getSimpleName();
  }

  private static long latestSchemaId(Catalog catalog, Identifier table)
      throws Catalog.TableNotExistException {
    catalog.invalidateTable(table);
    return schemaOf(catalog.getTable(table), table).id();
  }

  private static SchemaEvolutionException refusedByPaimon(
      Identifier table, EvolutionPlan plan, RuntimeException cause) {
    if (plan.steps().isEmpty()) {
      // only the companion's changes were refused
      SchemaEvolutionException refused =
          new SchemaEvolutionException(
              new Refusal(
                  table,
                  null,
                  null,
                  null,
                  "Paimon refused the change: " + cause.getMessage(),
                  null));
      refused.initCause(cause);
      return refused;
    }
    SchemaChangeStep first = plan.steps().get(0);
    String column =
        first instanceof SchemaChangeStep.WidenType w
            ? w.column()
            : first instanceof SchemaChangeStep.RelaxNotNull r
                ? r.column()
                : first instanceof SchemaChangeStep.AddColumn a ? a.column() : null;
    SchemaEvolutionException refused =
        new SchemaEvolutionException(
            new Refusal(
                table,
                column == null ? ((SchemaChangeStep.AddLenientColumn) first).newColumn() : column,
                first instanceof SchemaChangeStep.WidenType w ? w.from() : null,
                first instanceof SchemaChangeStep.WidenType w ? w.to() : null,
                "Paimon refused the change ["
                    + String.join(
                        "; ", plan.steps().stream().map(SchemaChangeStep::describe).toList())
                    + "]: "
                    + cause.getMessage(),
                null));
    refused.initCause(cause);
    return refused;
  }

  private static TableSchema schemaOf(Table table, Identifier identifier) {
    if (table instanceof FileStoreTable fileStoreTable) {
      // the table object may come from a cache: its schema files are the truth, options included
      // (copyWithLatestSchema would keep the cached object's options, e.g. without a sequence
      // group another task added, and the companion would re-plan it)
      return fileStoreTable.schemaManager().latest().orElse(fileStoreTable.schema());
    }
    throw new IllegalArgumentException(
        "Table " + identifier.getFullName() + " is not a Paimon file store table: " + table);
  }
}
