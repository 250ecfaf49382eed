package io.changelake.lsm.table;

import java.util.Map;
import org.apache.paimon.CoreOptions;

/** Paimon changelog producers supported by the platform. */
public enum ChangelogProducer {
  NONE("none"),
  INPUT("input"),
  LOOKUP("lookup"),
  /**
   * The changelog is produced by full compactions only: the compactor compacts such tables fully
   * every round, so changes between two rounds reach the changelog merged, once per round.
   */
  FULL_COMPACTION("full-compaction");

  private final String paimonName;

  ChangelogProducer(String paimonName) {
    this.paimonName = paimonName;
  }

  /** The value of Paimon's {@code changelog-producer} table option. */
  public String paimonName() {
    return paimonName;
  }

  /** The changelog producer a table's options name; Paimon's default, none, when they name none. */
  public static ChangelogProducer of(Map<String, String> tableOptions) {
    return fromPaimonName(
        tableOptions.getOrDefault(CoreOptions.CHANGELOG_PRODUCER.key(), NONE.paimonName()));
  }

  /** Parses Paimon's option value, e.g. {@code lookup}. */
  public static ChangelogProducer fromPaimonName(String name) {
    for (ChangelogProducer producer : values()) {
      if (producer.paimonName.equalsIgnoreCase(name)) {
        return producer;
      }
    }
    throw new IllegalArgumentException(
        "Unknown changelog producer '" + name + "'; use none, input, lookup or full-compaction");
  }
}
