package io.changelake.lsm.commit;

/** A Kafka topic partition, as recorded in snapshots next to its offset. */
public record SourcePartition(String topic, int partition) {}
