package io.changelake.configs.cli;

import picocli.CommandLine.Option;

/**
 * {@code -o/--output text|json}, mixed into every command. In json mode a command prints exactly
 * one JSON document on stdout, so scripts can pipe it to {@code jq}; progress and notices go to
 * stderr.
 */
final class OutputOptions {
  enum Format {
    TEXT,
    JSON
  }

  static final String OPTION = "--output";

  @Option(
      names = {"-o", OPTION},
      paramLabel = "FORMAT",
      defaultValue = "text",
      description =
          "text (default) or json: one JSON document on stdout with stable snake_case field"
              + " names (see the README); progress and notices then go to stderr.")
  Format format = Format.TEXT;

  boolean json() {
    return format == Format.JSON;
  }
}
