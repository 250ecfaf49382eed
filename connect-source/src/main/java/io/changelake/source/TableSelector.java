package io.changelake.source;

import java.util.List;
import java.util.regex.Pattern;
import org.apache.paimon.catalog.Identifier;

/** Which catalog tables the connector publishes. */
public sealed interface TableSelector {

  /** True when {@code table} is to be published. */
  boolean selects(Identifier table);

  static TableSelector listed(List<Identifier> tables) {
    return new Listed(List.copyOf(tables));
  }

  static TableSelector matching(Pattern pattern) {
    return new Matching(pattern);
  }

  /** An explicit list; listed tables that do not exist yet are picked up when created. */
  record Listed(List<Identifier> tables) implements TableSelector {
    @Override
    public boolean selects(Identifier table) {
      return tables.contains(table);
    }
  }

  /** Tables whose {@code <database>.<table>} name matches entirely. */
  record Matching(Pattern pattern) implements TableSelector {
    @Override
    public boolean selects(Identifier table) {
      return pattern.matcher(TableNames.format(table)).matches();
    }
  }
}
