package io.changelake.schema.config;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * A declared family of per-table keys, parsed here and nowhere else: defaults under {@code
 * <prefix><setting>}, one table's overrides under {@code <prefix><table>.<setting>}, and free
 * pass-through options under {@code <prefix><passthrough>.<name>} (every table) and {@code
 * <prefix><table>.<passthrough>.<name>} (one table). The settings are an ordinary {@link ConfigDef}
 * without prefix, so a setting is declared once and validated the same way as a default and as an
 * override.
 */
public final class PerTableKeys {

  private final String prefix;
  private final ConfigDef settings;
  private final String passthrough;
  private final String passthroughName;

  /**
   * @param prefix e.g. {@code table.}
   * @param settings the settings, by their names without prefix
   * @param passthrough the segment of pass-through keys, e.g. {@code option}
   * @param passthroughName what a pass-through key names, for errors, e.g. {@code
   *     paimon-table-option}
   */
  public PerTableKeys(
      String prefix, ConfigDef settings, String passthrough, String passthroughName) {
    this.prefix = prefix;
    this.settings = new ConfigDef(settings);
    this.passthrough = passthrough;
    this.passthroughName = passthroughName;
  }

  /** One table's settings (parsed by the settings' types) and its pass-through options. */
  public record Resolved(Map<String, Object> settings, Map<String, String> passthrough) {
    public Resolved {
      // parsed defaults may be null, which Map.copyOf refuses
      settings = Collections.unmodifiableMap(new HashMap<>(settings));
      passthrough = Map.copyOf(passthrough);
    }
  }

  /** The prefix of the defaults' pass-through keys, e.g. {@code table.option.}. */
  public String passthroughPrefix() {
    return prefix + passthrough + ".";
  }

  /** Defines the documented defaults ({@code <prefix><setting>}) in {@code group}. */
  public void defineDefaults(OptionGroup group) {
    for (ConfigDef.ConfigKey key : settings.configKeys().values()) {
      group.define(prefix + key.name, key);
    }
  }

  /** Names of the tables that have {@code <prefix><table>.*} overrides. */
  public Set<String> overriddenTables(Map<String, String> props) {
    Set<String> tables = new TreeSet<>();
    for (String key : props.keySet()) {
      if (!key.startsWith(prefix) || key.startsWith(passthroughPrefix())) {
        continue;
      }
      String rest = key.substring(prefix.length());
      int dot = rest.indexOf('.');
      // the defaults are single words (table.merge-engine); overrides have a table segment
      if (dot > 0) {
        tables.add(rest.substring(0, dot));
      }
    }
    return tables;
  }

  /**
   * The settings of {@code table}: the defaults with its own keys winning.
   *
   * @throws ConfigException naming the key of an unknown setting, or the table and the setting of
   *     an invalid value
   */
  public Resolved resolve(Map<String, String> props, String table) {
    Map<String, String> merged = new HashMap<>();
    Map<String, String> options = new LinkedHashMap<>();
    String own = prefix + table + ".";
    String ownPassthrough = passthrough + ".";
    // defaults first, then the table's own keys win
    for (Map.Entry<String, String> e : props.entrySet()) {
      String key = e.getKey();
      if (key.startsWith(passthroughPrefix())) {
        options.put(key.substring(passthroughPrefix().length()), e.getValue());
      } else if (key.startsWith(prefix) && isSetting(key.substring(prefix.length()))) {
        merged.put(key.substring(prefix.length()), e.getValue());
      }
    }
    for (Map.Entry<String, String> e : props.entrySet()) {
      String key = e.getKey();
      if (!key.startsWith(own)) {
        continue;
      }
      String setting = key.substring(own.length());
      if (setting.startsWith(ownPassthrough)) {
        options.put(setting.substring(ownPassthrough.length()), e.getValue());
      } else if (isSetting(setting)) {
        merged.put(setting, e.getValue());
      } else {
        throw new ConfigException(
            key,
            e.getValue(),
            "Unknown table setting '"
                + setting
                + "'. Per-table keys are "
                + prefix
                + "<table>.<setting> with <setting> one of "
                + settings.names()
                + ", or "
                + prefix
                + "<table>."
                + ownPassthrough
                + "<"
                + passthroughName
                + ">");
      }
    }
    try {
      return new Resolved(settings.parse(merged), options);
    } catch (ConfigException e) {
      throw new ConfigException(
          "Invalid settings for table '"
              + table
              + "' ("
              + prefix
              + table
              + ".*): "
              + e.getMessage());
    }
  }

  private boolean isSetting(String name) {
    return settings.names().contains(name);
  }
}
