package io.changelake.source.offset;

import io.changelake.lsm.changelog.ReaderPosition;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The position up to which Kafka acknowledged every record of one reader, in the order the records
 * were handed to Connect. Acknowledgements arrive out of order (each topic partition has its own
 * batches and retries), so the newest acknowledged position alone can be ahead of a record still in
 * flight or failed: handing that to the Paimon consumer (which a restore prefers when it is later
 * than the stored offset) would skip the record after a restart. Only the end of the acknowledged
 * prefix is safe.
 *
 * <p>Each dispatch returns a {@link Ticket} that the record carries to its acknowledgement, so
 * acknowledging costs no lookup. Records sharing a position (a delete and its tombstone) share a
 * ticket and count once each. Thread-safe: records are dispatched on the task thread, acknowledged
 * on the producer's, the prefix read on the offset committer's.
 *
 * <p>An acknowledgement only counts its ticket down, without a lock: the producer's thread
 * acknowledges the records of one batch while the task thread dispatches the next, and a lock taken
 * per record by both made them wait for each other. The acknowledged prefix is moved on by the next
 * dispatch (once per batch) and by {@link #contiguous}, so the tickets kept stay bounded by the
 * records in flight and one batch.
 */
public final class AcknowledgedPositions {

  /** The records dispatched at one position, until Kafka acknowledged all of them. */
  public static final class Ticket {
    private static final AtomicIntegerFieldUpdater<Ticket> UNACKNOWLEDGED =
        AtomicIntegerFieldUpdater.newUpdater(Ticket.class, "unacknowledged");

    private final ReaderPosition position;
    private volatile int unacknowledged = 1;

    private Ticket(ReaderPosition position) {
      this.position = position;
    }

    /**
     * Kafka acknowledged one record of this ticket (or Connect dropped it); more acknowledgements
     * than records count as many as there are records.
     */
    public void acknowledged() {
      int left;
      do {
        left = unacknowledged;
        if (left <= 0) {
          return;
        }
      } while (!UNACKNOWLEDGED.compareAndSet(this, left, left - 1));
    }

    private boolean settled() {
      return unacknowledged <= 0;
    }
  }

  // guarded by this
  private final ArrayDeque<Ticket> inFlight = new ArrayDeque<>();
  private ReaderPosition contiguous;

  /**
   * A record carrying {@code position} is handed to Connect (in position order); returns the ticket
   * its acknowledgement is reported with.
   */
  public synchronized Ticket dispatched(ReaderPosition position) {
    return dispatched(new ReaderPosition[] {position}, 0, 1)[0];
  }

  /**
   * Records carrying {@code positions[from..to)} are handed to Connect, in that order (position
   * order); returns their tickets, the i-th for {@code positions[from + i]}. One lock for all of
   * them.
   */
  public synchronized Ticket[] dispatched(ReaderPosition[] positions, int from, int to) {
    settle();
    Ticket[] tickets = new Ticket[to - from];
    Ticket last = inFlight.peekLast();
    for (int i = from; i < to; i++) {
      ReaderPosition position = positions[i];
      if (last != null && last.position.equals(position)) {
        // the prefix moves only under this lock, so the ticket is still in flight even when its
        // first record was acknowledged already
        Ticket.UNACKNOWLEDGED.incrementAndGet(last);
      } else {
        last = new Ticket(position);
        inFlight.addLast(last);
      }
      tickets[i - from] = last;
    }
    return tickets;
  }

  /**
   * Kafka acknowledged a record carrying {@code position}, for a record that lost its ticket: the
   * oldest ticket in flight at that position is acknowledged. Positions this instance did not
   * dispatch, or whose records are all acknowledged, are ignored. Linear in the records in flight;
   * records Connect hands back carry their ticket ({@link Ticket#acknowledged}).
   */
  public synchronized void acknowledged(ReaderPosition position) {
    for (Iterator<Ticket> it = inFlight.iterator(); it.hasNext(); ) {
      Ticket ticket = it.next();
      if (ticket.position.equals(position) && !ticket.settled()) {
        ticket.acknowledged();
        return;
      }
    }
  }

  /** The position after the last record of the acknowledged prefix, if any was acknowledged. */
  public synchronized Optional<ReaderPosition> contiguous() {
    settle();
    return Optional.ofNullable(contiguous);
  }

  private void settle() {
    while (!inFlight.isEmpty() && inFlight.peekFirst().settled()) {
      contiguous = inFlight.removeFirst().position;
    }
  }
}
