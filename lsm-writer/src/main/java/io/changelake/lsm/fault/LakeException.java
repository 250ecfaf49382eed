package io.changelake.lsm.fault;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A failure of lsm-writer that says whether doing the same again is safe, and what must happen
 * first. Subclasses are the kinds a caller tells apart:
 *
 * <ul>
 *   <li>{@link LakeUnavailableException}: the object store or the catalog did not answer; the same
 *       call again is safe.
 *   <li>{@link CommitConflictException}: Paimon refused a commit; the writer is intact, its files
 *       stay pending and the next commit retries them after re-reading the table.
 *   <li>{@link BrokenWriterException}: the writer (or a file it keeps) is in a state that cannot be
 *       trusted; it must be discarded and its uncommitted rows read again from the committed
 *       offsets.
 *   <li>{@link WriterFencedException}: a newer instance writes under the same commit user; this one
 *       must stop.
 *   <li>{@link LakeDataException}: the data or schema cannot be written as it is; names the table
 *       and the field.
 * </ul>
 *
 * <p>{@link #retriable()} says whether a retry is <em>safe</em> (nothing lost, nothing twice);
 * whether waiting can help is {@link Failures}'s call on the cause. Extends {@link
 * IllegalStateException}, which lsm-writer threw before, so existing callers keep working.
 */
public abstract sealed class LakeException extends IllegalStateException
    permits LakeUnavailableException,
        CommitConflictException,
        BrokenWriterException,
        WriterFencedException,
        LakeDataException {

  private final boolean retriable;

  // each kind fixes whether a retry is safe, so it is a property of the kind, not of the call
  LakeException(String message, Throwable cause, boolean retriable) {
    super(message, cause);
    this.retriable = retriable;
  }

  /** True when doing the same again (after what the kind says) loses and duplicates nothing. */
  public final boolean retriable() {
    return retriable;
  }

  /**
   * The failure of an operation whose cause lsm-writer does not know more about: {@link
   * LakeUnavailableException} when {@link Failures} finds the cause transient, else {@code
   * otherwise}.
   */
  public static LakeException wrap(
      String message,
      Throwable cause,
      java.util.function.BiFunction<String, Throwable, LakeException> otherwise) {
    return Failures.isTransient(cause)
        ? new LakeUnavailableException(message, cause)
        : otherwise.apply(message, cause);
  }

  /** The outermost {@code type} in {@code error}'s cause chain. */
  public static <T extends LakeException> Optional<T> find(Throwable error, Class<T> type) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = error; t != null && seen.put(t, true) == null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return Optional.of(type.cast(t));
      }
    }
    return Optional.empty();
  }
}
