package io.changelake.source.offset;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.changelog.ReaderPosition;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
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

  @Test
  void aBatchDispatchedAtOnceGivesEachRecordItsTicketAndADeleteAndItsTombstoneOne() {
    AcknowledgedPositions positions = new AcknowledgedPositions();
    ReaderPosition[] batch = {at(2, 1), at(2, 2), at(2, 3), at(2, 3), at(2, 4)};
    AcknowledgedPositions.Ticket[] tickets = positions.dispatched(batch, 1, 5);
    assertThat(tickets).hasSize(4);
    assertThat(tickets[2]).as("the delete of row 3 and its tombstone").isSameAs(tickets[1]);

    tickets[0].acknowledged();
    tickets[1].acknowledged();
    assertThat(positions.contiguous()).as("the tombstone of row 3 is in flight").contains(at(2, 2));
    tickets[3].acknowledged();
    tickets[2].acknowledged();
    assertThat(positions.contiguous()).contains(at(2, 4));
  }

  @Test
  void acknowledgementsOnAnotherThreadWhileLaterBatchesAreDispatchedEndAtTheLastPosition()
      throws Exception {
    AcknowledgedPositions positions = new AcknowledgedPositions();
    BlockingQueue<AcknowledgedPositions.Ticket> sent = new LinkedBlockingQueue<>();
    int batches = 200;
    int perBatch = 500;
    Thread producer =
        new Thread(
            () -> {
              try {
                for (int n = 0; n < batches * perBatch; n++) {
                  sent.take().acknowledged();
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    producer.start();
    for (int b = 0; b < batches; b++) {
      ReaderPosition[] batch = new ReaderPosition[perBatch];
      for (int i = 0; i < perBatch; i++) {
        batch[i] = at(1, (long) b * perBatch + i + 1);
      }
      for (AcknowledgedPositions.Ticket ticket : positions.dispatched(batch, 0, perBatch)) {
        sent.add(ticket);
      }
    }
    producer.join(60_000);
    assertThat(producer.isAlive()).isFalse();
    assertThat(positions.contiguous()).contains(at(1, (long) batches * perBatch));
  }
}
