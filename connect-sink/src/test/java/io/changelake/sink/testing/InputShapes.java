package io.changelake.sink.testing;

import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.testkit.InputShape;
import java.util.Map;
import java.util.regex.Pattern;

/** How the sink is configured to read records of each test-kit {@link InputShape}. */
public final class InputShapes {
  private InputShapes() {}

  /**
   * The sink settings for a shape: {@code input.format=flattened} for flattened rows; nothing for
   * envelopes, whose tests have always run on the default ({@code auto}).
   */
  public static Map<String, String> sinkConfig(InputShape shape) {
    return shape.isFlattened() ? Map.of(ChangelakeSinkConfig.INPUT_FORMAT, "flattened") : Map.of();
  }

  /**
   * Routing that sends every record of a topic ending in {@code .<table>} to table {@code table}:
   * {@code route.table.format=${source.table}} when every record of the shape names its source
   * table (envelopes, rewritten deletes); else (a flattened tombstone names no table, and the sink
   * refuses {@code ${source.table}} for it) a rule taking the name from the topic, which unlike a
   * fixed name still lets truncates apply.
   */
  public static Map<String, String> route(InputShape shape, String table) {
    return !shape.isFlattened() || shape.rewritesDeletes()
        ? Map.of(ChangelakeSinkConfig.ROUTE_TABLE_FORMAT, "${source.table}")
        : Map.of(
            ChangelakeSinkConfig.ROUTE_REGEX_RULES, "(?:.*\\.)?(" + Pattern.quote(table) + ")=>$1");
  }
}
