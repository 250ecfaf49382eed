package io.changelake.console.table;

/** {@code database.table} names as the console's pages and links use them. */
public final class TableNames {
  private TableNames() {}

  public static String database(String full) {
    int dot = full.indexOf('.');
    return dot < 0 ? "default" : full.substring(0, dot);
  }

  public static String table(String full) {
    int dot = full.indexOf('.');
    return dot < 0 ? full : full.substring(dot + 1);
  }
}
