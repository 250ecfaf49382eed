package io.changelake.source.offset;

import java.time.Duration;
import java.util.Optional;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.Table;

/**
 * Bounds how long a Paimon consumer nobody advances any more can pin a table's snapshots. A deleted
 * connector cannot remove its consumers (Connect stops a connector the same way when it is deleted,
 * paused, stopped or reconfigured), so the bound is Paimon's {@code consumer.expiration-time}: the
 * table's writer, when it expires snapshots, first removes consumers whose file was not rewritten
 * for that long (running readers rewrite theirs at least every 10 minutes). A table without that
 * option keeps an abandoned consumer, and every snapshot from its position on, forever; such a
 * table gets the connector's bound.
 */
public final class ConsumerExpiry {
  private ConsumerExpiry() {}

  /**
   * The bound on one table.
   *
   * @param value the table's {@code consumer.expiration-time}
   * @param setByConnector true when the connector set it just now (the table had none)
   */
  public record Bound(Identifier table, String value, boolean setByConnector) {}

  /**
   * Sets {@code consumer.expiration-time} to {@code bound} on {@code id} unless the table has its
   * own value (its owner's choice, e.g. the sink's tables carry 7 days), which stays.
   */
  public static Bound ensureBounded(Catalog catalog, Identifier id, Duration bound)
      throws Catalog.TableNotExistException {
    String key = CoreOptions.CONSUMER_EXPIRATION_TIME.key();
    Optional<String> own = own(catalog.getTable(id), key);
    if (own.isPresent()) {
      return new Bound(id, own.get(), false);
    }
    String value = bound.toMillis() + " ms";
    try {
      catalog.alterTable(id, SchemaChange.setOption(key, value), false);
    } catch (Catalog.ColumnAlreadyExistException | Catalog.ColumnNotExistException e) {
      throw new IllegalStateException("setting an option changes no column: " + e, e);
    }
    catalog.invalidateTable(id);
    // another connector may have set its own bound at the same time: the table's value counts
    String now = own(catalog.getTable(id), key).orElse(value);
    return new Bound(id, now, now.equals(value));
  }

  private static Optional<String> own(Table table, String key) {
    return Optional.ofNullable(table.options().get(key));
  }
}
