package io.changelake.sink.task;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.catalog.Identifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to a record the sink cannot write: the dead-letter queue with the reason when {@code
 * errors.tolerance=all}, otherwise a task failure naming the record, the table and the field.
 */
final class ErrorHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorHandler.class);

  private final ErrantRecordReporter reporter;
  private final List<Future<Void>> inFlight = new ArrayList<>();

  /** {@code reporter} is null unless errors are tolerated. */
  ErrorHandler(ErrantRecordReporter reporter) {
    this.reporter = reporter;
  }

  boolean tolerates() {
    return reporter != null;
  }

  /** Reports {@code record}, or throws the task-failing exception when errors are not tolerated. */
  void handle(SinkRecord record, Identifier table, RuntimeException error) {
    ConnectException described = describe(record, table, error);
    if (reporter == null) {
      throw described;
    }
    LOG.warn("Sending record to the dead-letter queue: {}", described.getMessage());
    inFlight.add(reporter.report(record, described));
  }

  /**
   * Waits until every reported record is in the dead-letter queue, so offsets past them may be
   * committed.
   */
  void awaitReported() {
    for (Future<Void> future : inFlight) {
      try {
        future.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ConnectException("Interrupted while writing to the dead-letter queue", e);
      } catch (ExecutionException e) {
        throw new ConnectException("Writing to the dead-letter queue failed", e.getCause());
      }
    }
    inFlight.clear();
  }

  static ConnectException describe(SinkRecord record, Identifier table, Throwable error) {
    StringBuilder message =
        new StringBuilder("Cannot write record ")
            .append(record.originalTopic())
            .append('-')
            .append(record.originalKafkaPartition())
            .append('@')
            .append(record.originalKafkaOffset());
    if (table != null) {
      message.append(" to table ").append(table.getFullName());
    }
    String field = fieldOf(error);
    if (field != null) {
      message.append(" (field '").append(field).append("')");
    }
    message.append(": ").append(error.getMessage());
    return new ConnectException(message.toString(), error);
  }

  private static String fieldOf(Throwable error) {
    if (error instanceof RecordException e) {
      return e.field();
    }
    if (error instanceof io.changelake.schema.ValueConversionException e) {
      return e.field();
    }
    if (error instanceof io.changelake.schema.evolution.SchemaEvolutionException e) {
      return e.column();
    }
    if (error instanceof io.changelake.lsm.fault.LakeDataException e) {
      return e.field();
    }
    return null;
  }
}
