package io.changelake.schema.evolution;

/** What to do with one kind of schema change. */
public enum SchemaChangeBehavior {
  /** Change the table so records keep all their values. */
  APPLY,
  /**
   * Leave the table as it is and write records with its schema: unknown fields are dropped, missing
   * columns get null, values are converted to the existing column type (a value that does not fit
   * fails the task).
   */
  IGNORE,
  /** Fail the task with a {@link SchemaEvolutionException} naming the change. */
  FAIL,
  /**
   * Only for incompatible type changes: keep the old column (it gets null from now on) and add a
   * new column for the new type, named by {@link LenientColumns#name}.
   */
  LENIENT
}
