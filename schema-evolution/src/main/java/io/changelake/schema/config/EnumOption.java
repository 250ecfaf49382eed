package io.changelake.schema.config;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The one helper for an option whose value is one of an enum's constants: it yields the validator,
 * the recommender (the values in declaration order) and the parsing, all from the same list of
 * values, so the three never disagree. Values match in any case, surrounding blanks ignored.
 *
 * @param <E> the enum
 */
public final class EnumOption<E> {

  private final List<E> values;
  private final Function<E, String> configName;
  private final Function<String, E> parser;
  private final List<String> names;

  private EnumOption(List<E> values, Function<E, String> configName, Function<String, E> parser) {
    this.values = List.copyOf(values);
    this.configName = configName;
    this.parser = parser;
    this.names = this.values.stream().map(configName).toList();
  }

  /** Every constant of a self-describing enum. */
  public static <E extends Enum<E> & ConfigEnum> EnumOption<E> of(Class<E> type) {
    return of(Arrays.asList(type.getEnumConstants()));
  }

  /** Only {@code allowed} (in this order), e.g. the behaviours one kind of schema change offers. */
  public static <E extends Enum<E> & ConfigEnum> EnumOption<E> of(List<E> allowed) {
    return new EnumOption<>(allowed, ConfigEnum::configName, null);
  }

  /**
   * An enum of another module that cannot implement {@link ConfigEnum} (lsm-writer knows no Kafka
   * types) and parses its names itself: the parser's {@link IllegalArgumentException} message
   * becomes the validation message.
   */
  public static <E> EnumOption<E> foreign(
      E[] values, Function<E, String> configName, Function<String, E> parser) {
    return new EnumOption<>(Arrays.asList(values), configName, parser);
  }

  /** The values as written in configs, in declaration order. */
  public List<String> names() {
    return names;
  }

  /** The config name of {@code value}, e.g. for a default. */
  public String nameOf(E value) {
    return configName.apply(value);
  }

  /**
   * The constant {@code value} names.
   *
   * @throws ConfigException naming {@code option}, the value and the allowed values
   */
  public E parse(String option, Object value) {
    if (value == null) {
      throw new ConfigException(option, null, mustBeOneOf());
    }
    try {
      return parser == null ? lookup(String.valueOf(value)) : parser.apply(String.valueOf(value));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(option, value, e.getMessage());
    }
  }

  /** Accepts exactly what {@link #parse} accepts; its text is the doc row's valid values. */
  public ConfigDef.Validator validator() {
    return new ConfigDef.Validator() {
      @Override
      public void ensureValid(String name, Object value) {
        parse(name, value);
      }

      @Override
      public String toString() {
        return names.toString();
      }
    };
  }

  /** Recommends the values in declaration order, always visible. */
  public ConfigDef.Recommender recommender() {
    return recommender(key -> true);
  }

  /** Recommends the values; the key is shown while {@code visible} holds for the parsed config. */
  public ConfigDef.Recommender recommender(Predicate<Map<String, Object>> visible) {
    List<Object> recommended = List.copyOf(names);
    return new ConfigDef.Recommender() {
      @Override
      public List<Object> validValues(String name, Map<String, Object> parsedConfig) {
        return recommended;
      }

      @Override
      public boolean visible(String name, Map<String, Object> parsedConfig) {
        return visible.test(parsedConfig);
      }
    };
  }

  /** True when {@code value} (as a config holds it) names {@code constant}. */
  public boolean is(Object value, E constant) {
    return value != null
        && configName.apply(constant).equalsIgnoreCase(String.valueOf(value).trim());
  }

  private E lookup(String value) {
    String wanted = value.trim();
    for (E candidate : values) {
      if (configName.apply(candidate).equalsIgnoreCase(wanted)) {
        return candidate;
      }
    }
    throw new IllegalArgumentException(mustBeOneOf());
  }

  private String mustBeOneOf() {
    return "Must be one of " + names;
  }

  @Override
  public String toString() {
    return names.toString();
  }
}
