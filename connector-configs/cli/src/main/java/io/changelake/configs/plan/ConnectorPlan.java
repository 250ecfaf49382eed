package io.changelake.configs.plan;

import io.changelake.configs.files.ConnectorFile;
import java.util.List;

/** What deploying one connector file would do. */
public sealed interface ConnectorPlan {
  ConnectorFile file();

  /** The connector does not exist yet. */
  record Create(ConnectorFile file) implements ConnectorPlan {}

  /** The connector exists with another config. */
  record Update(ConnectorFile file, List<KeyChange> changes) implements ConnectorPlan {
    public Update {
      changes = List.copyOf(changes);
    }
  }

  /** The connector exists with exactly this config. */
  record Unchanged(ConnectorFile file) implements ConnectorPlan {}

  /**
   * One key that differs; {@code before} null when added, {@code after} null when removed.
   *
   * @param key the config key
   * @param before the deployed value
   * @param after the value in the file
   */
  record KeyChange(String key, String before, String after) {}
}
