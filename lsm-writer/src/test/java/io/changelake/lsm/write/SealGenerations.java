package io.changelake.lsm.write;

/**
 * Turns the two-generation seal on for the writers opened until {@link #close}, which puts the
 * previous setting back: for tests of other modules, which cannot reach the writer's own hook.
 */
public final class SealGenerations implements AutoCloseable {
  private final boolean before;

  private SealGenerations(boolean on) {
    before = PooledTableWriter.useGenerations(on);
  }

  /** The seal hands sealed rows to a writer generation flushed where the commit lands. */
  public static SealGenerations on() {
    return new SealGenerations(true);
  }

  @Override
  public void close() {
    PooledTableWriter.useGenerations(before);
  }
}
