package io.changelake.lsm.commit;

import java.util.Optional;

/**
 * What the newest commit that recorded a partition says about it.
 *
 * @param nextOffset the next offset to consume
 * @param mark the mark committed with it (see {@link SourceProgress}), empty when none was
 */
public record CommittedPartition(long nextOffset, Optional<String> mark) {}
