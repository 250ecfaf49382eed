package io.changelake.source.offset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.source.assign.BucketSet;
import io.changelake.source.assign.TableAssignment;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.Test;

class SourceOffsetsTest {
  private static final TableAssignment ORDERS =
      new TableAssignment(Identifier.create("shop", "orders"), BucketSet.all());

  @Test
  void positionSurvivesTheOffsetRoundTripIncludingJsonIntegers() {
    Map<String, Object> partition = SourceOffsets.partition(ORDERS);
    assertThat(partition)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("database", "shop", "table", "orders", "buckets", "all"));
    // Connect looks offsets up by the partition's JSON, key order included; the REST API's
    // partitions are HashMaps, whose order depends only on the keys
    java.util.HashMap<String, Object> fromRest = new java.util.HashMap<>();
    fromRest.put("buckets", "all");
    fromRest.put("table", "orders");
    fromRest.put("database", "shop");
    assertThat(List.copyOf(partition.keySet())).isEqualTo(List.copyOf(fromRest.keySet()));
    ReaderPosition position = new ReaderPosition(12, 300, false);
    assertThat(SourceOffsets.parseOffset(partition, SourceOffsets.offset(position)))
        .contains(position);
    // Connect's offset store may hand small numbers back as integers
    assertThat(
            SourceOffsets.parseOffset(
                partition, Map.of("snapshot_id", 3, "row_offset", 0, "full_state", true)))
        .contains(new ReaderPosition(3, 0, true));
    assertThat(SourceOffsets.parseOffset(partition, null)).isEmpty();
    assertThat(SourceOffsets.parsePartition(partition)).isEqualTo(ORDERS);
  }

  @Test
  void malformedOffsetsNameTheFieldAndShowTheExpectedShape() {
    Map<String, Object> partition = SourceOffsets.partition(ORDERS);
    assertThatThrownBy(
            () -> SourceOffsets.parseOffset(partition, Map.of("snapshot_id", "x", "row_offset", 0)))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("'snapshot_id' must be a number")
        .hasMessageContaining("shop")
        .hasMessageContaining("\"full_state\"");
    assertThatThrownBy(() -> SourceOffsets.parsePartition(Map.of("database", "shop")))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("'table'");
    Map<String, Object> badBuckets = SourceOffsets.partition(ORDERS);
    badBuckets.put("buckets", "x");
    assertThatThrownBy(() -> SourceOffsets.parsePartition(badBuckets))
        .hasMessageContaining("'buckets'");
  }
}
