package io.changelake.lsm.commit;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.Snapshot;

/**
 * Tells apart live writer instances that share one commit user, so the newer one wins.
 *
 * <p>Paimon knows a commit user only by name and drops a commit whose identifier that user already
 * committed. Two live instances under one name (a zombie task still running after its shutdown
 * timeout, two Connect clusters on one warehouse, a connector re-created under the same name while
 * the old one runs) therefore drop each other's commits, silently: each believes its rows landed.
 * Every snapshot a writer commits carries its instance id and epoch (the time it started, strictly
 * growing within a JVM), and before each commit the writer looks at the newest snapshot of its
 * commit user: one written by a newer instance fences this one (it must stop), one by an older
 * instance is still running and will be fenced by the snapshots this one commits.
 *
 * <p>Epochs come from the clocks of the machines involved: between machines whose clocks differ by
 * more than the time between the two starts, the older instance may be taken for the newer. The
 * outcome is still a loud failure of one of them, never a silent loss.
 */
public final class CommitFence {
  /** Snapshot property: the id of the writer instance that committed the snapshot. */
  public static final String INSTANCE_PROPERTY = "changelake.writer.instance";

  /** Snapshot property: the epoch (start time in ms) of that instance. */
  public static final String EPOCH_PROPERTY = "changelake.writer.epoch";

  private static final AtomicLong LAST_EPOCH = new AtomicLong();

  private final String instance;
  private final long epoch;

  private CommitFence(String instance, long epoch) {
    this.instance = instance;
    this.epoch = epoch;
  }

  /** A new instance, newer than every instance started before it in this JVM. */
  public static CommitFence startingNow() {
    long epoch = LAST_EPOCH.updateAndGet(last -> Math.max(last + 1, System.currentTimeMillis()));
    return new CommitFence(UUID.randomUUID().toString(), epoch);
  }

  /** The snapshot properties that name this instance. */
  public Map<String, String> properties() {
    return Map.of(INSTANCE_PROPERTY, instance, EPOCH_PROPERTY, Long.toString(epoch));
  }

  /** Whether this instance committed {@code snapshot}. */
  public boolean wrote(Snapshot snapshot) {
    return instance.equals(properties(snapshot).get(INSTANCE_PROPERTY));
  }

  /** What the newest snapshot of this instance's commit user means for its next commit. */
  public Verdict judge(Snapshot newestOfUser) {
    if (newestOfUser == null || wrote(newestOfUser)) {
      return new Verdict.Clear();
    }
    String other = properties(newestOfUser).get(INSTANCE_PROPERTY);
    // snapshots of versions before the fence carry no instance: such a writer is older
    long otherEpoch = epochOf(newestOfUser);
    boolean otherIsNewer =
        otherEpoch > epoch
            || (otherEpoch == epoch && other != null && other.compareTo(instance) > 0);
    return otherIsNewer
        ? new Verdict.Fenced(newestOfUser)
        : new Verdict.OlderInstanceActive(newestOfUser);
  }

  /** A readable description of this instance, for error messages. */
  public String describe() {
    return "instance " + instance + " (started " + Instant.ofEpochMilli(epoch) + ")";
  }

  /** A readable description of the instance that committed {@code snapshot}. */
  public static String describeWriterOf(Snapshot snapshot) {
    String other = properties(snapshot).get(INSTANCE_PROPERTY);
    if (other == null) {
      return "an instance of an earlier Changelake version";
    }
    return "instance " + other + " (started " + Instant.ofEpochMilli(epochOf(snapshot)) + ")";
  }

  private static long epochOf(Snapshot snapshot) {
    String value = properties(snapshot).get(EPOCH_PROPERTY);
    try {
      return value == null ? 0 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static Map<String, String> properties(Snapshot snapshot) {
    Map<String, String> properties = snapshot.properties();
    return properties == null ? Map.of() : properties;
  }

  /** The meaning of the newest snapshot of a commit user, for the next commit of an instance. */
  public sealed interface Verdict {
    /** No snapshot, or one of this instance's own: commit. */
    record Clear() implements Verdict {}

    /** A newer instance commits under this user: this one must stop without committing. */
    record Fenced(Snapshot newest) implements Verdict {}

    /**
     * An older instance committed after this one started: commit with identifiers past its snapshot
     * (or Paimon drops this commit as already committed); the older one is fenced by it.
     */
    record OlderInstanceActive(Snapshot newest) implements Verdict {}
  }
}
