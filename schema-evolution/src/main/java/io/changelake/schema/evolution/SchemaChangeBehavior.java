package io.changelake.schema.evolution;

import io.changelake.schema.config.ConfigEnum;

/** What to do with one kind of schema change. */
public enum SchemaChangeBehavior implements ConfigEnum {
  APPLY("Change the table so records keep all their values."),
  IGNORE(
      "Leave the table as it is and write records with its schema: unknown fields are dropped,"
          + " missing columns get null, values are converted to the existing column type (a value"
          + " that does not fit fails the task)."),
  /** Fail the task with a {@link SchemaEvolutionException} naming the change. */
  FAIL("Fail the task with an error naming the change."),
  /** Only for incompatible type changes; the new column is named by {@link LenientColumns#name}. */
  LENIENT(
      "Only for incompatible type changes: keep the old column (it gets null from now on) and add"
          + " a new column for the new type, named <column>__<new type>.");

  private final String description;

  SchemaChangeBehavior(String description) {
    this.description = description;
  }

  @Override
  public String description() {
    return description;
  }

  /** The historical upper-case values ({@code APPLY}), which existing configs and docs use. */
  @Override
  public String configName() {
    return name();
  }
}
