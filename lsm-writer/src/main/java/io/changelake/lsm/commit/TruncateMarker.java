package io.changelake.lsm.commit;

import java.util.Map;
import org.apache.paimon.Snapshot;

/**
 * How a truncate is recognised in a table's history. The sink commits a truncate as an overwrite
 * snapshot carrying {@link #PROPERTY}; Paimon's overwrite snapshots carry no changelog, so the
 * changelog source looks for this mark to publish the truncate to its consumers.
 */
public final class TruncateMarker {
  /** Snapshot property set on every snapshot that truncates the table. */
  public static final String PROPERTY = "changelake.truncate";

  private TruncateMarker() {}

  /** The snapshot property that marks a truncate. */
  public static Map<String, String> property() {
    return Map.of(PROPERTY, "true");
  }

  /**
   * Whether {@code snapshot} truncated the table: it carries the mark, or it is an overwrite
   * snapshot (tables written before the mark existed, or truncated by another engine).
   */
  public static boolean isTruncate(Snapshot snapshot) {
    Map<String, String> properties = snapshot.properties();
    if (properties != null && properties.containsKey(PROPERTY)) {
      return true;
    }
    return snapshot.commitKind() == Snapshot.CommitKind.OVERWRITE;
  }
}
