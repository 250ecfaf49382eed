package io.changelake.lsm.commit;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The layout of the sink's commit mark for one Kafka partition ({@link SourceProgress#marks()}):
 * {@code <reached>[|truncated=<position>][|stream=<position>@<source.ts_ms>@<source>]}. The sink
 * gives the parts their meaning (its {@code PartitionMark} and {@code StreamPosition}); the layout
 * lives here so that readers of a table's snapshots (the console's freshness) parse the same text
 * the sink writes instead of copying the format.
 *
 * @param reached the highest source position reached, as the sink encodes it; empty text when none
 * @param truncatedAt the position of the table's newest truncate, when there was one
 * @param stream the partition's stream high mark, when its records carried one
 */
public record CommitMark(String reached, Optional<String> truncatedAt, Optional<Stream> stream) {
  private static final String TRUNCATE = "|truncated=";
  // last, so marks written before it existed read the same
  private static final String STREAM = "|stream=";

  /**
   * A stream position with the source time it was seen at.
   *
   * @param position the log position as the sink encodes it ({@code KIND:value})
   * @param sourceTimestamp {@code source.ts_ms}: for a partition's high mark the latest one seen
   * @param source the Debezium logical name and database the position belongs to
   */
  public record Stream(String position, long sourceTimestamp, String source) {
    private static final char SEPARATOR = '@';

    /** {@code position@ts@source}, the source URL-encoded so that it may hold any character. */
    public String encode() {
      return position
          + SEPARATOR
          + sourceTimestamp
          + SEPARATOR
          + URLEncoder.encode(source, StandardCharsets.UTF_8);
    }

    /**
     * Reads what {@link #encode} wrote; a malformed text is an {@link IllegalArgumentException}.
     */
    public static Stream parse(String text) {
      int first = text.indexOf(SEPARATOR);
      int second = first < 0 ? -1 : text.indexOf(SEPARATOR, first + 1);
      if (second < 0) {
        throw new IllegalArgumentException("Malformed stream position '" + text + "'");
      }
      try {
        return new Stream(
            text.substring(0, first),
            Long.parseLong(text.substring(first + 1, second)),
            URLDecoder.decode(text.substring(second + 1), StandardCharsets.UTF_8));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("Malformed stream position '" + text + "'", e);
      }
    }
  }

  public CommitMark {
    reached = reached == null ? "" : reached;
  }

  /** The text stored in a commit; empty when the mark holds nothing. */
  public Optional<String> encode() {
    if (reached.isEmpty() && truncatedAt.isEmpty() && stream.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        reached
            + truncatedAt.map(p -> TRUNCATE + p).orElse("")
            + stream.map(s -> STREAM + s.encode()).orElse(""));
  }

  /** Reads what {@link #encode} wrote; a malformed stream part is an IllegalArgumentException. */
  public static CommitMark parse(String text) {
    int streamAt = text.indexOf(STREAM);
    Optional<Stream> stream =
        streamAt < 0
            ? Optional.empty()
            : Optional.of(Stream.parse(text.substring(streamAt + STREAM.length())));
    String rest = streamAt < 0 ? text : text.substring(0, streamAt);
    int truncate = rest.indexOf(TRUNCATE);
    return new CommitMark(
        truncate < 0 ? rest : rest.substring(0, truncate),
        truncate < 0 ? Optional.empty() : Optional.of(rest.substring(truncate + TRUNCATE.length())),
        stream);
  }

  /**
   * The {@code source.ts_ms} of a stored mark's stream high mark; empty when it holds none or is
   * not a mark of this layout (a reader shows "unknown" rather than failing a page on it).
   */
  public static Optional<Long> sourceTimestamp(String text) {
    try {
      return parse(text).stream().map(Stream::sourceTimestamp);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
