package io.changelake.lsm.table;

import java.util.Map;
import org.apache.paimon.CoreOptions;

/** Paimon merge engines; the first two are first class, the others are passed through. */
public enum MergeEngine {
  DEDUPLICATE("deduplicate"),
  PARTIAL_UPDATE("partial-update"),
  FIRST_ROW("first-row"),
  AGGREGATION("aggregation");

  private final String paimonName;

  MergeEngine(String paimonName) {
    this.paimonName = paimonName;
  }

  /** The value of Paimon's {@code merge-engine} table option. */
  public String paimonName() {
    return paimonName;
  }

  /**
   * The merge engine a table's options name; Paimon's default, deduplicate, when they name none.
   */
  public static MergeEngine of(Map<String, String> tableOptions) {
    return fromPaimonName(
        tableOptions.getOrDefault(CoreOptions.MERGE_ENGINE.key(), DEDUPLICATE.paimonName()));
  }

  /** Parses Paimon's option value, e.g. {@code partial-update}. */
  public static MergeEngine fromPaimonName(String name) {
    for (MergeEngine engine : values()) {
      if (engine.paimonName.equalsIgnoreCase(name)) {
        return engine;
      }
    }
    throw new IllegalArgumentException(
        "Unknown merge engine '"
            + name
            + "'; use deduplicate, partial-update, first-row or aggregation");
  }
}
