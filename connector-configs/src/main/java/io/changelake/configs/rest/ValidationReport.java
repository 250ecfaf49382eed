package io.changelake.configs.rest;

import java.util.List;

/**
 * What {@code PUT /connector-plugins/{class}/config/validate} says about one config.
 *
 * @param connectorClass the plugin validated against
 * @param errorCount total number of errors Connect counted
 * @param keys every key Connect knows for this plugin, with its errors
 */
public record ValidationReport(String connectorClass, int errorCount, List<KeyReport> keys) {

  public ValidationReport {
    keys = List.copyOf(keys);
  }

  /**
   * One key of the validation answer.
   *
   * @param name the key
   * @param type Connect's type of the key ({@code PASSWORD} values are never printed)
   * @param group the group of the key in the plugin's ConfigDef
   * @param errors the errors for this key, empty when valid
   */
  public record KeyReport(String name, String type, String group, List<String> errors) {
    public KeyReport {
      errors = List.copyOf(errors);
    }
  }

  public List<KeyReport> keysWithErrors() {
    return keys.stream().filter(k -> !k.errors().isEmpty()).toList();
  }
}
