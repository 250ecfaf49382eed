package io.changelake.schema.evolution;

import org.apache.paimon.types.DataType;

/**
 * The naming rule for columns added by {@link SchemaChangeBehavior#LENIENT}: {@code
 * <column>__<type>}, where {@code <type>} is the new type's SQL name without nullability, lower
 * case, every run of characters other than letters and digits replaced by one underscore and
 * trailing underscores removed. Examples: {@code price} changing to {@code STRING} gives {@code
 * price__string}; to {@code DECIMAL(20, 4)} gives {@code price__decimal_20_4}; to {@code
 * TIMESTAMP(6) WITH LOCAL TIME ZONE} gives {@code price__timestamp_6_with_local_time_zone}.
 */
public final class LenientColumns {

  /** Separates the source column name from the type suffix. */
  public static final String SEPARATOR = "__";

  private LenientColumns() {}

  /** The lenient column holding values of {@code newType} for source column {@code column}. */
  public static String name(String column, DataType newType) {
    String suffix =
        newType
            .copy(true)
            .asSQLString()
            .toLowerCase(java.util.Locale.ROOT)
            .replaceAll("[^a-z0-9]+", "_")
            .replaceAll("^_+|_+$", "");
    return column + SEPARATOR + suffix;
  }
}
