package io.changelake.source.offset;

import io.changelake.lsm.changelog.ReaderPosition;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Optional;

/**
 * The position up to which Kafka acknowledged every record of one reader, in the order the records
 * were handed to Connect. Acknowledgements arrive out of order (each topic partition has its own
 * batches and retries), so the newest acknowledged position alone can be ahead of a record still in
 * flight or failed: handing that to the Paimon consumer (which a restore prefers when it is later
 * than the stored offset) would skip the record after a restart. Only the end of the acknowledged
 * prefix is safe.
 *
 * <p>Each dispatch returns a {@link Ticket} that the record carries to its acknowledgement, so
 * acknowledging costs no lookup: O(1) amortised (each ticket leaves the queue once). Records
 * sharing a position (a delete and its tombstone) share a ticket and count once each. Thread-safe:
 * records are dispatched on the task thread, acknowledged on the producer's.
 */
public final class AcknowledgedPositions {

  /** The records dispatched at one position, until Kafka acknowledged all of them. */
  public static final class Ticket {
    private final AcknowledgedPositions owner;
    private final ReaderPosition position;
    // guarded by owner
    private int unacknowledged = 1;

    private Ticket(AcknowledgedPositions owner, ReaderPosition position) {
      this.owner = owner;
      this.position = position;
    }

    /** Kafka acknowledged one record of this ticket (or Connect dropped it). */
    public void acknowledged() {
      owner.acknowledged(this);
    }
  }

  private final ArrayDeque<Ticket> inFlight = new ArrayDeque<>();
  private ReaderPosition contiguous;

  /**
   * A record carrying {@code position} is handed to Connect (in position order); returns the ticket
   * its acknowledgement is reported with.
   */
  public synchronized Ticket dispatched(ReaderPosition position) {
    Ticket last = inFlight.peekLast();
    if (last != null && last.position.equals(position)) {
      last.unacknowledged++;
      return last;
    }
    Ticket ticket = new Ticket(this, position);
    inFlight.addLast(ticket);
    return ticket;
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
      if (ticket.position.equals(position) && ticket.unacknowledged > 0) {
        acknowledged(ticket);
        return;
      }
    }
  }

  private synchronized void acknowledged(Ticket ticket) {
    if (ticket.owner != this || ticket.unacknowledged <= 0) {
      return;
    }
    ticket.unacknowledged--;
    while (!inFlight.isEmpty() && inFlight.peekFirst().unacknowledged <= 0) {
      contiguous = inFlight.removeFirst().position;
    }
  }

  /** The position after the last record of the acknowledged prefix, if any was acknowledged. */
  public synchronized Optional<ReaderPosition> contiguous() {
    return Optional.ofNullable(contiguous);
  }
}
