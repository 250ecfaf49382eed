package io.changelake.configs.plan;

import io.changelake.configs.files.ConnectorFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/** Compares a connector file with what is deployed. */
public final class Planner {
  private Planner() {}

  public static ConnectorPlan plan(ConnectorFile file, Optional<Map<String, String>> deployed) {
    if (deployed.isEmpty()) {
      return new ConnectorPlan.Create(file);
    }
    Map<String, String> wanted = file.configToSend();
    Map<String, String> current = deployed.get();
    List<ConnectorPlan.KeyChange> changes = new ArrayList<>();
    TreeSet<String> keys = new TreeSet<>(wanted.keySet());
    keys.addAll(current.keySet());
    for (String key : keys) {
      String before = current.get(key);
      String after = wanted.get(key);
      if (!Objects.equals(before, after)) {
        changes.add(new ConnectorPlan.KeyChange(key, before, after));
      }
    }
    return changes.isEmpty()
        ? new ConnectorPlan.Unchanged(file)
        : new ConnectorPlan.Update(file, changes);
  }
}
