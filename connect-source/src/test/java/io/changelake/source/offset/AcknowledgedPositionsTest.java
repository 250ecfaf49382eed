package io.changelake.source.offset;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.changelog.ReaderPosition;
import org.junit.jupiter.api.Test;

class AcknowledgedPositionsTest {
  private static ReaderPosition at(long snapshot, long row) {
    return new ReaderPosition(snapshot, row, false);
  }

  @Test
  void aRecordStillInFlightHoldsBackEveryLaterAcknowledgement() {
    AcknowledgedPositions positions = new AcknowledgedPositions();
    for (int row = 1; row <= 4; row++) {
      positions.dispatched(at(3, row));
    }
    // partition B acknowledges rows 2 and 4 while row 1 (partition A) is still being retried
    positions.acknowledged(at(3, 2));
    positions.acknowledged(at(3, 4));
    assertThat(positions.contiguous()).as("nothing before row 1 is acknowledged").isEmpty();

    positions.acknowledged(at(3, 1));
    assertThat(positions.contiguous()).contains(at(3, 2));
    positions.acknowledged(at(3, 3));
    assertThat(positions.contiguous()).contains(at(3, 4));
  }

  @Test
  void aDeleteAndItsTombstoneCountAsTwoRecordsOfOnePosition() {
    AcknowledgedPositions positions = new AcknowledgedPositions();
    positions.dispatched(at(5, 1));
    positions.dispatched(at(5, 1)); // the tombstone after the delete
    positions.dispatched(at(6, 0));
    positions.acknowledged(at(5, 1));
    positions.acknowledged(at(6, 0));
    assertThat(positions.contiguous()).as("the tombstone is not acknowledged yet").isEmpty();
    positions.acknowledged(at(5, 1));
    assertThat(positions.contiguous()).contains(at(6, 0));
  }

  @Test
  void positionsOfAnotherIncarnationAreIgnored() {
    AcknowledgedPositions positions = new AcknowledgedPositions();
    positions.dispatched(at(9, 1));
    positions.acknowledged(at(8, 40));
    assertThat(positions.contiguous()).isEmpty();
    positions.acknowledged(at(9, 1));
    assertThat(positions.contiguous()).contains(at(9, 1));
  }

  @Test
  void ticketsAcknowledgedOutOfOrderAdvanceOnlyTheAcknowledgedPrefix() {
    AcknowledgedPositions positions = new AcknowledgedPositions();
    AcknowledgedPositions.Ticket first = positions.dispatched(at(4, 1));
    AcknowledgedPositions.Ticket delete = positions.dispatched(at(4, 2));
    AcknowledgedPositions.Ticket tombstone = positions.dispatched(at(4, 2));
    AcknowledgedPositions.Ticket last = positions.dispatched(at(4, 3));
    assertThat(tombstone).as("a delete and its tombstone share a position").isSameAs(delete);

    last.acknowledged();
    delete.acknowledged();
    assertThat(positions.contiguous()).as("row 1 is still in flight").isEmpty();
    first.acknowledged();
    assertThat(positions.contiguous()).as("the tombstone of row 2 is in flight").contains(at(4, 1));
    tombstone.acknowledged();
    assertThat(positions.contiguous()).contains(at(4, 3));
  }

  @Test
  void aTicketAcknowledgedMoreOftenThanItsRecordsWereDispatchedCountsOnce() {
    AcknowledgedPositions positions = new AcknowledgedPositions();
    AcknowledgedPositions.Ticket first = positions.dispatched(at(7, 1));
    positions.dispatched(at(7, 2));
    first.acknowledged();
    first.acknowledged();
    assertThat(positions.contiguous()).contains(at(7, 1));
    positions.dispatched(at(7, 3)).acknowledged();
    assertThat(positions.contiguous()).as("row 2 is still in flight").contains(at(7, 1));
  }
}
