package io.changelake.schema.config;

import java.util.Locale;

/**
 * An enum whose constants are values of a config option and describe themselves, so no enum needs
 * its own {@code configName}/{@code fromConfigName}: {@link EnumOption} derives the validator, the
 * recommender and the parsing from it. Implemented only by enums.
 */
public interface ConfigEnum {

  /** What choosing this value does, in a sentence a user can act on. */
  String description();

  /**
   * The value as written in configs: the constant's name in lower case with {@code _} as {@code -}
   * ({@code REMOVE_ROW} is {@code remove-row}), the one mapping both connectors use. An enum
   * keeping historical values overrides it.
   */
  default String configName() {
    return ((Enum<?>) this).name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The constant of {@code type} that {@code value} names (any case, surrounding blanks ignored).
   *
   * @throws org.apache.kafka.common.config.ConfigException naming {@code option}, the value and the
   *     allowed values
   */
  static <E extends Enum<E> & ConfigEnum> E fromConfigName(
      Class<E> type, String option, Object value) {
    return EnumOption.of(type).parse(option, value);
  }
}
