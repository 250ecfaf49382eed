package io.changelake.schema.evolution;

import io.changelake.schema.config.EnumOption;
import io.changelake.schema.config.OptionGroup;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/**
 * How to react to each kind of schema change, settable per kind (in the spirit of Flink CDC's
 * schema change behaviours). Defaults apply every lossless change and refuse the rest.
 *
 * @param addColumn a record field unknown to the table
 * @param addRequiredColumn a required record field without default unknown to the table (existing
 *     rows have no value for it); APPLY adds it nullable like any other column
 * @param widenType a field of a wider type than its column
 * @param relaxNotNull an optional field for a NOT NULL column
 * @param missingColumn a table column the record has no field for (never dropped): APPLY writes
 *     null and drops NOT NULL where needed, IGNORE writes null without changing the table
 * @param incompatibleType a field whose type cannot be reached from the column's type without loss
 *     (FAIL, IGNORE or LENIENT; never APPLY)
 * @param maxAttempts how often {@link SchemaEvolver} re-reads and re-plans when other tasks change
 *     the schema at the same time
 */
public record EvolutionPolicy(
    SchemaChangeBehavior addColumn,
    SchemaChangeBehavior addRequiredColumn,
    SchemaChangeBehavior widenType,
    SchemaChangeBehavior relaxNotNull,
    SchemaChangeBehavior missingColumn,
    SchemaChangeBehavior incompatibleType,
    int maxAttempts) {

  public static final String PREFIX = "schema.evolution.";
  public static final String ADD_COLUMN = PREFIX + "add-column";
  public static final String ADD_REQUIRED_COLUMN = PREFIX + "add-required-column";
  public static final String WIDEN_TYPE = PREFIX + "widen-type";
  public static final String RELAX_NOT_NULL = PREFIX + "relax-not-null";
  public static final String MISSING_COLUMN = PREFIX + "missing-column";
  public static final String INCOMPATIBLE_TYPE = PREFIX + "incompatible-type";
  public static final String MAX_ATTEMPTS = PREFIX + "max-attempts";
  public static final String GROUP = "Schema evolution";

  // in the order users see them; for incompatible types the safe default comes first
  private static final EnumOption<SchemaChangeBehavior> COMMON =
      EnumOption.of(
          List.of(
              SchemaChangeBehavior.APPLY, SchemaChangeBehavior.IGNORE, SchemaChangeBehavior.FAIL));
  private static final EnumOption<SchemaChangeBehavior> INCOMPATIBLE =
      EnumOption.of(
          List.of(
              SchemaChangeBehavior.FAIL,
              SchemaChangeBehavior.IGNORE,
              SchemaChangeBehavior.LENIENT));

  public EvolutionPolicy {
    require(ADD_COLUMN, addColumn, COMMON);
    require(ADD_REQUIRED_COLUMN, addRequiredColumn, COMMON);
    require(WIDEN_TYPE, widenType, COMMON);
    require(RELAX_NOT_NULL, relaxNotNull, COMMON);
    require(MISSING_COLUMN, missingColumn, COMMON);
    require(INCOMPATIBLE_TYPE, incompatibleType, INCOMPATIBLE);
    if (maxAttempts < 1) {
      throw new ConfigException(MAX_ATTEMPTS, maxAttempts, "must be at least 1");
    }
  }

  /** The defaults of {@link #configDef()}. */
  public static EvolutionPolicy defaults() {
    return from(Map.of());
  }

  /** The {@code schema.evolution.*} settings, to merge into a connector's ConfigDef. */
  public static ConfigDef configDef() {
    ConfigDef def = new ConfigDef();
    OptionGroup group = new OptionGroup(def, GROUP);
    define(
        group,
        ADD_COLUMN,
        SchemaChangeBehavior.APPLY,
        COMMON,
        "A record field the table has no column for. APPLY adds a nullable column at the end of the"
            + " table; IGNORE drops the field's values; FAIL stops the task.");
    define(
        group,
        ADD_REQUIRED_COLUMN,
        SchemaChangeBehavior.FAIL,
        COMMON,
        "A new record field that is required (NOT NULL) and has no default value: rows already in"
            + " the table cannot get a value for it. APPLY adds it as a nullable column (old rows"
            + " read null); IGNORE drops the field's values; FAIL stops the task.");
    define(
        group,
        WIDEN_TYPE,
        SchemaChangeBehavior.APPLY,
        COMMON,
        "A field whose type is wider than its column's (int8->int16->int32->int64, float->double,"
            + " decimal growth keeping the integer digits, char/varchar/binary length, timestamp"
            + " precision, integer->wide enough decimal). APPLY widens the column; IGNORE keeps"
            + " it and writes values that fit (a value that does not fit stops the task); FAIL"
            + " stops the task.");
    define(
        group,
        RELAX_NOT_NULL,
        SchemaChangeBehavior.APPLY,
        COMMON,
        "An optional field for a NOT NULL column. APPLY makes the column nullable (never for"
            + " primary-key columns); IGNORE keeps NOT NULL (a null value stops the task); FAIL"
            + " stops the task.");
    define(
        group,
        MISSING_COLUMN,
        SchemaChangeBehavior.APPLY,
        COMMON,
        "A column the record has no field for (e.g. dropped in the source). Columns are never"
            + " dropped. APPLY keeps the column, writes null (partial-update tables keep the"
            + " stored value) and makes it nullable if needed; IGNORE does the same without"
            + " changing the table (a NOT NULL column then stops the task); FAIL stops the task.");
    define(
        group,
        INCOMPATIBLE_TYPE,
        SchemaChangeBehavior.FAIL,
        INCOMPATIBLE,
        "A field whose type cannot be reached from its column's type without loss (narrowing a"
            + " column is never done; narrower values are simply written into the wider column)."
            + " FAIL stops the task; LENIENT keeps the old column (null from then on) and adds a"
            + " new nullable column named <column>__<new type>, e.g. price__string or"
            + " price__decimal_20_4; IGNORE drops the field's values (data loss).");
    group.define(
        MAX_ATTEMPTS,
        Type.INT,
        10,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "How often a task re-reads the table schema and re-plans when other tasks change it at"
            + " the same time, before failing.",
        Width.SHORT,
        "Schema change attempts");
    return def;
  }

  /** Reads the {@code schema.evolution.*} keys of {@code props}; other keys are ignored. */
  public static EvolutionPolicy from(Map<String, ?> props) {
    Map<String, Object> own =
        props.entrySet().stream()
            .filter(e -> e.getKey().startsWith(PREFIX))
            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    AbstractConfig config = new AbstractConfig(configDef(), own, false);
    return new EvolutionPolicy(
        behavior(config, ADD_COLUMN, COMMON),
        behavior(config, ADD_REQUIRED_COLUMN, COMMON),
        behavior(config, WIDEN_TYPE, COMMON),
        behavior(config, RELAX_NOT_NULL, COMMON),
        behavior(config, MISSING_COLUMN, COMMON),
        behavior(config, INCOMPATIBLE_TYPE, INCOMPATIBLE),
        config.getInt(MAX_ATTEMPTS));
  }

  private static SchemaChangeBehavior behavior(
      AbstractConfig config, String key, EnumOption<SchemaChangeBehavior> option) {
    return option.parse(key, config.getString(key));
  }

  private static void define(
      OptionGroup group,
      String key,
      SchemaChangeBehavior defaultValue,
      EnumOption<SchemaChangeBehavior> option,
      String doc) {
    group.define(
        key,
        option,
        defaultValue,
        Importance.MEDIUM,
        doc + " One of " + option.names() + ".",
        Width.SHORT,
        key.substring(PREFIX.length()));
  }

  private static void require(
      String key, SchemaChangeBehavior value, EnumOption<SchemaChangeBehavior> allowed) {
    if (value == null || !allowed.names().contains(value.configName())) {
      throw new ConfigException(key, value, "must be one of " + allowed.names());
    }
  }
}
