package io.changelake.source.offset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.ReaderPosition;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.Test;

class SourceOffsetsTest {
  private static final Identifier ORDERS = Identifier.create("shop", "orders");

  @Test
  void positionSurvivesTheOffsetRoundTripIncludingJsonIntegers() {
    Map<String, Object> partition = SourceOffsets.partition(ORDERS, 3);
    assertThat(partition)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("database", "shop", "table", "orders", "bucket", "3"));
    assertThat(SourceOffsets.partition(ORDERS, ChangelogReader.ALL_BUCKETS))
        .containsEntry("bucket", "all");
    // Connect looks offsets up by the partition's JSON, key order included; the REST API's
    // partitions are HashMaps, whose order depends only on the keys
    java.util.HashMap<String, Object> fromRest = new java.util.HashMap<>();
    fromRest.put("bucket", "3");
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
    assertThat(SourceOffsets.parsePartition(partition))
        .isEqualTo(new SourceOffsets.PartitionBuckets(ORDERS, Set.of(3)));
    assertThat(
            SourceOffsets.parsePartition(
                SourceOffsets.partition(ORDERS, ChangelogReader.ALL_BUCKETS)))
        .isEqualTo(new SourceOffsets.PartitionBuckets(ORDERS, Set.of()));
  }

  @Test
  void anOffsetIsStoredByConnectAsTheSameJsonAsAMapOfItsThreeFieldsAndCannotBeChanged() {
    Map<String, Object> offset = SourceOffsets.offset(new ReaderPosition(12, 300, true));
    Map<String, Object> asMap = new java.util.LinkedHashMap<>();
    asMap.put("snapshot_id", 12L);
    asMap.put("row_offset", 300L);
    asMap.put("full_state", true);
    assertThat(offset).isEqualTo(asMap).hasSameHashCodeAs(asMap);
    assertThat(asMap).isEqualTo(offset);
    assertThat(offset.get("row_offset")).isEqualTo(300L);
    assertThat(offset.get("bucket")).isNull();
    // Connect's offset store writes offsets with a schemaless JsonConverter, key order included
    try (org.apache.kafka.connect.json.JsonConverter json =
        new org.apache.kafka.connect.json.JsonConverter()) {
      json.configure(Map.of("schemas.enable", "false"), false);
      assertThat(new String(json.fromConnectData("offsets", null, offset)))
          .isEqualTo("{\"snapshot_id\":12,\"row_offset\":300,\"full_state\":true}");
    }
    assertThatThrownBy(() -> offset.put("row_offset", 0L))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> offset.entrySet().iterator().next().setValue(0L))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void partitionsOfEarlierVersionsNamedBucketSetsAndAreStillAccepted() {
    // Connect hands them to alterOffsets when a user resets the connector's offsets
    Map<String, Object> legacy = SourceOffsets.legacyPartition(ORDERS, Set.of(0, 2));
    assertThat(legacy)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("database", "shop", "table", "orders", "buckets", "0,2"));
    assertThat(SourceOffsets.parsePartition(legacy))
        .isEqualTo(new SourceOffsets.PartitionBuckets(ORDERS, Set.of(0, 2)));
    assertThat(SourceOffsets.parsePartition(SourceOffsets.legacyPartition(ORDERS, Set.of())))
        .isEqualTo(new SourceOffsets.PartitionBuckets(ORDERS, Set.of()));
  }

  @Test
  void malformedOffsetsNameTheFieldAndShowTheExpectedShape() {
    Map<String, Object> partition = SourceOffsets.partition(ORDERS, 0);
    assertThatThrownBy(
            () -> SourceOffsets.parseOffset(partition, Map.of("snapshot_id", "x", "row_offset", 0)))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("'snapshot_id' must be a number")
        .hasMessageContaining("shop")
        .hasMessageContaining("\"full_state\"");
    assertThatThrownBy(() -> SourceOffsets.parsePartition(Map.of("database", "shop")))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("'table'");
    Map<String, Object> badBucket = SourceOffsets.partition(ORDERS, 0);
    badBucket.put("bucket", "0,2");
    assertThatThrownBy(() -> SourceOffsets.parsePartition(badBucket))
        .hasMessageContaining("'bucket' must be a bucket number");
  }
}
