package io.changelake.source.offset;

import io.changelake.lsm.changelog.ReaderPosition;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The position up to which Kafka acknowledged every record of one reader, in the order the records
 * were handed to Connect. Acknowledgements arrive out of order (each topic partition has its own
 * batches and retries), so the newest acknowledged position alone can be ahead of a record still in
 * flight or failed: handing that to the Paimon consumer (which a restore prefers when it is later
 * than the stored offset) would skip the record after a restart. Only the end of the acknowledged
 * prefix is safe.
 *
 * <p>Records sharing a position (a delete and its tombstone) count once each. Thread-safe: records
 * are dispatched on the task thread, acknowledged on the producer's.
 */
public final class AcknowledgedPositions {
  private static final class Pending {
    final ReaderPosition position;
    int unacknowledged = 1;

    Pending(ReaderPosition position) {
      this.position = position;
    }
  }

  private final ArrayDeque<Pending> inFlight = new ArrayDeque<>();
  private final Map<ReaderPosition, Pending> byPosition = new HashMap<>();
  private ReaderPosition contiguous;

  /** A record carrying {@code position} is handed to Connect (in position order). */
  public synchronized void dispatched(ReaderPosition position) {
    Pending last = inFlight.peekLast();
    if (last != null && last.position.equals(position)) {
      last.unacknowledged++;
      return;
    }
    Pending pending = new Pending(position);
    inFlight.addLast(pending);
    byPosition.put(position, pending);
  }

  /**
   * Kafka acknowledged a record carrying {@code position} (or Connect is done with it otherwise: a
   * transformation dropped it). Positions this instance did not dispatch are ignored.
   */
  public synchronized void acknowledged(ReaderPosition position) {
    Pending pending = byPosition.get(position);
    if (pending == null) {
      return;
    }
    pending.unacknowledged--;
    while (!inFlight.isEmpty() && inFlight.peekFirst().unacknowledged <= 0) {
      Pending done = inFlight.removeFirst();
      byPosition.remove(done.position);
      contiguous = done.position;
    }
  }

  /** The position after the last record of the acknowledged prefix, if any was acknowledged. */
  public synchronized Optional<ReaderPosition> contiguous() {
    return Optional.ofNullable(contiguous);
  }
}
