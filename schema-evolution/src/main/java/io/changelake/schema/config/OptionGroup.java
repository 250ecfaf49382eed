package io.changelake.schema.config;

import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * Defines the keys of one documentation group of a {@link ConfigDef}, numbered in the order they
 * are defined, so a connector's config reads as one small method per group and never counts
 * positions by hand.
 */
public final class OptionGroup {

  private final ConfigDef def;
  private final String name;
  private int order;
  // the key defined last, which recommended(...) completes
  private String last;

  public OptionGroup(ConfigDef def, String name) {
    this.def = def;
    this.name = name;
  }

  /** The group's name as shown in the docs and by Connect. */
  public String name() {
    return name;
  }

  /** A key without validator. */
  public OptionGroup define(
      String key,
      Type type,
      Object defaultValue,
      Importance importance,
      String doc,
      Width width,
      String displayName) {
    return define(key, type, defaultValue, null, importance, doc, width, displayName);
  }

  /** A key with a validator ({@code null} for none). */
  public OptionGroup define(
      String key,
      Type type,
      Object defaultValue,
      ConfigDef.Validator validator,
      Importance importance,
      String doc,
      Width width,
      String displayName) {
    def.define(
        key, type, defaultValue, validator, importance, doc, name, ++order, width, displayName);
    last = key;
    return this;
  }

  /**
   * Gives the key defined last the keys whose visibility depends on it ({@code dependents}) and a
   * recommender ({@code null} for none): kept apart from {@link #define} so that the few keys with
   * one read like every other key, and the parameter list lives in one place.
   */
  public OptionGroup recommended(List<String> dependents, ConfigDef.Recommender recommender) {
    ConfigDef.ConfigKey key = def.configKeys().get(last);
    // ConfigDef keeps its keys in definition order: replacing the value keeps the position
    def.configKeys()
        .put(
            last,
            new ConfigDef.ConfigKey(
                key.name,
                key.type,
                key.defaultValue,
                key.validator,
                key.importance,
                key.documentation,
                key.group,
                key.orderInGroup,
                key.width,
                key.displayName,
                dependents,
                recommender,
                key.internalConfig));
    return this;
  }

  /** An enum option: its validator, recommender and default all come from {@code option}. */
  public <E> OptionGroup define(
      String key,
      EnumOption<E> option,
      E defaultValue,
      Importance importance,
      String doc,
      Width width,
      String displayName) {
    return define(
            key,
            Type.STRING,
            option.nameOf(defaultValue),
            option.validator(),
            importance,
            doc,
            width,
            displayName)
        .recommended(List.of(), option.recommender());
  }

  /**
   * Names the keys whose visibility depends on the key defined last (an enum option whose value
   * decides which of them apply), keeping its recommender.
   */
  public OptionGroup dependents(List<String> dependents) {
    return recommended(dependents, def.configKeys().get(last).recommender);
  }

  /** {@code key} as it is, under another name, in this group at the next position. */
  public OptionGroup define(String newName, ConfigDef.ConfigKey key) {
    return define(
            newName,
            key.type,
            key.hasDefault() ? key.defaultValue : ConfigDef.NO_DEFAULT_VALUE,
            key.validator,
            key.importance,
            key.documentation,
            key.width,
            key.displayName)
        .recommended(key.dependents, key.recommender);
  }
}
