package io.changelake.source.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SourceTableMetricsTest {
  @Test
  void snapshotsBehindCountWhatIsCommittedButNotReadYet() {
    SourceTableMetrics metrics = new SourceMetrics(null).table("shop.orders");
    assertThat(metrics.lastSnapshotId()).isEqualTo(-1);

    metrics.position(1, 4L); // nothing read, four snapshots committed
    assertThat(metrics.snapshotsBehind()).isEqualTo(4);
    metrics.recordsOut(5);
    metrics.snapshotDone(2, true);
    metrics.position(3, 4L);
    assertThat(metrics.lastSnapshotId()).isEqualTo(2);
    assertThat(metrics.snapshotsBehind()).isEqualTo(2);
    // a snapshot without changes for this task's buckets is read, not published
    metrics.snapshotDone(3, false);
    metrics.position(5, 4L);
    assertThat(metrics.snapshotsBehind()).isZero();
    assertThat(metrics.lastSnapshotId()).isEqualTo(4);
    assertThat(metrics.transactions()).isEqualTo(1);
    assertThat(metrics.records()).isEqualTo(5);
  }
}
