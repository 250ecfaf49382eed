package io.changelake.lsm.table;

/**
 * Columns the platform adds to tables for its own bookkeeping (e.g. sequence fields carrying the
 * source position). They share one prefix so readers such as the changelog source can leave them
 * out of what users see.
 */
public final class InternalColumns {
  /** Prefix of every internal column name. */
  public static final String PREFIX = "_changelake_";

  private InternalColumns() {}

  /** True for columns the platform owns. */
  public static boolean isInternal(String columnName) {
    return columnName.startsWith(PREFIX);
  }
}
