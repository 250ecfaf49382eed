package io.changelake.sink.task;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Runs the {@link RecordPipeline} over one batch of records on a thread of the task's own while
 * Connect fetches and converts the next batch on the task thread: with JsonConverter the converting
 * is most of a task thread's time, and decoding and writing the rows the rest, so the two overlap
 * instead of adding up. At most one batch is in flight: everything else the task does (commit
 * rounds, rewinds, Connect's context, dead-letter reports) happens after {@link #await}, on the
 * task thread, with none. A failure of the batch is thrown by that {@code await}: the next {@code
 * put}, {@code preCommit}, {@code open} or {@code close}.
 *
 * <p>When off ({@code pipeline.thread=false}) the batch is processed inside {@link #submit}; the
 * task also processes small batches and those of a round on its own thread ({@link #process}).
 */
final class PipelineThread implements AutoCloseable {
  private static final long IDLE_SECONDS = 60;

  private final RecordPipeline pipeline;
  // null when off
  private final ThreadPoolExecutor thread;
  private Future<Stopped> inFlight;
  private List<SinkRecord> batch;
  // a batch with records was processed on the calling thread (process) since the last await
  private boolean finished;

  /** Where a batch stopped: at a record for the dead-letter queue, reported on the task thread. */
  private record Stopped(int index, RecordPipeline.Rejected rejected) {}

  PipelineThread(RecordPipeline pipeline, boolean on, String name) {
    this.pipeline = pipeline;
    this.thread =
        on
            ? new ThreadPoolExecutor(
                1,
                1,
                IDLE_SECONDS,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                r -> {
                  Thread t = new Thread(r, name);
                  t.setDaemon(true);
                  return t;
                })
            : null;
    if (thread != null) {
      // a task that receives nothing keeps no thread
      thread.allowCoreThreadTimeOut(true);
    }
  }

  /**
   * Processes {@code records}: on the pipeline thread when on, else here. Call {@link #await}
   * first.
   */
  void submit(Collection<SinkRecord> records) {
    if (inFlight != null) {
      throw new IllegalStateException("a batch is in flight: await it first");
    }
    if (records.isEmpty()) {
      return;
    }
    if (thread == null) {
      process(records);
      return;
    }
    List<SinkRecord> list = records instanceof List<SinkRecord> l ? l : new ArrayList<>(records);
    batch = list;
    inFlight = thread.submit(() -> processUntilRejected(list));
  }

  /** Processes {@code records} on this thread. Call {@link #await} first. */
  void process(Collection<SinkRecord> records) {
    if (inFlight != null) {
      throw new IllegalStateException("a batch is in flight: await it first");
    }
    records.forEach(pipeline::process);
    finished |= !records.isEmpty();
  }

  private Stopped processUntilRejected(List<SinkRecord> records) {
    for (int i = 0; i < records.size(); i++) {
      RecordPipeline.Rejected rejected = pipeline.processOrReject(records.get(i));
      if (rejected != null) {
        return new Stopped(i, rejected);
      }
    }
    return null;
  }

  /** The number of records in flight, for messages about a failed batch. */
  int inFlightSize() {
    return inFlight == null ? 0 : batch.size();
  }

  /**
   * Waits for the batch in flight, if any, and finishes it here: a record it stopped at goes to the
   * dead-letter queue, the records after it are processed on this thread. Throws the batch's
   * failure.
   *
   * @return whether a batch with records was finished
   */
  boolean await() {
    if (inFlight == null) {
      boolean processed = finished;
      finished = false;
      return processed;
    }
    List<SinkRecord> records = batch;
    Stopped stopped;
    try {
      stopped = inFlight.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      // still in flight: close waits for it before the writers close under it
      throw new ConnectException(
          "Interrupted while waiting for a batch of records to be written", e);
    } catch (ExecutionException e) {
      inFlight = null;
      batch = null;
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new ConnectException("Writing a batch of records failed", e.getCause());
    }
    inFlight = null;
    batch = null;
    if (stopped != null) {
      pipeline.deadLetter(stopped.rejected());
      records.subList(stopped.index() + 1, records.size()).forEach(pipeline::process);
    }
    return true;
  }

  /**
   * Lets a batch in flight finish (its failure is dropped: its records are read again) and ends.
   */
  @Override
  public void close() {
    if (thread == null) {
      return;
    }
    try {
      if (inFlight != null) {
        inFlight.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // uncommitted: read again from the committed positions by whoever owns them next
    } finally {
      inFlight = null;
      batch = null;
      thread.shutdown();
    }
  }
}
