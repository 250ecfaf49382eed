package io.changelake.configs.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * Which warehouse the lake commands read, with the {@code paimon.*} options the connectors take.
 */
final class LakeOptions {
  private static final String PREFIX = "paimon.";

  @Option(
      names = {"-w", "--warehouse"},
      paramLabel = "URI",
      required = true,
      defaultValue = "${env:CHANGELAKE_WAREHOUSE}",
      description =
          "The warehouse, as in the connectors' paimon.warehouse: a path, file:// or s3:// URI"
              + " (default: $CHANGELAKE_WAREHOUSE).")
  String warehouse;

  @Option(
      names = {"-O", "--catalog-option"},
      paramLabel = "KEY=VALUE",
      description =
          "A catalog option as the connectors take it, with or without the paimon. prefix"
              + " (repeatable), e.g. -O paimon.s3.endpoint=http://s3:9000"
              + " -O s3.path.style.access=true, or -O metastore=jdbc -O uri=jdbc:postgresql://...")
  Map<String, String> options = new LinkedHashMap<>();

  /** The options keyed as in a connector config ({@code paimon.warehouse}, ...). */
  Map<String, String> catalogProps() {
    Map<String, String> props = new LinkedHashMap<>();
    options.forEach((k, v) -> props.put(k.startsWith(PREFIX) ? k : PREFIX + k, v));
    props.put(PREFIX + "warehouse", warehouse);
    return props;
  }
}
