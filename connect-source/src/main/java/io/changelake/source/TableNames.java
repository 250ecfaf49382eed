package io.changelake.source;

import org.apache.kafka.common.config.ConfigException;
import org.apache.paimon.catalog.Identifier;

/** The {@code <database>.<table>} notation used in configs, topic names and offsets. */
final class TableNames {
  private TableNames() {}

  /** Parses {@code <database>.<table>}; the configuration key is named in the error. */
  static Identifier parse(String configKey, String qualifiedName) {
    String name = qualifiedName.trim();
    int dot = name.indexOf('.');
    if (dot <= 0 || dot == name.length() - 1 || name.indexOf('.', dot + 1) >= 0) {
      throw new ConfigException(
          configKey, qualifiedName, "expected <database>.<table>, e.g. shop.orders");
    }
    return Identifier.create(name.substring(0, dot), name.substring(dot + 1));
  }

  static String format(Identifier table) {
    return table.getDatabaseName() + "." + table.getObjectName();
  }
}
