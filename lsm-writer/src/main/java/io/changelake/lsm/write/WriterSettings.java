package io.changelake.lsm.write;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings shared by all writers of one pool (one sink task).
 *
 * @param commitUser Paimon commit user of this pool; must be stable across restarts of the same
 *     task (e.g. {@code <connector>-<task>}) so commit identifiers keep growing
 * @param spillDirectory local directory for spilling and lookup files
 * @param memoryBudgetBytes one write buffer shared by every open table of the pool
 * @param idleTimeout writers untouched for this long are closed (after their data was committed)
 */
public record WriterSettings(
    String commitUser, Path spillDirectory, long memoryBudgetBytes, Duration idleTimeout) {}
