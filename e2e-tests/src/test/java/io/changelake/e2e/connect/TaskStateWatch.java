package io.changelake.e2e.connect;

import com.fasterxml.jackson.databind.JsonNode;
import io.changelake.testkit.connect.ConnectPlatform;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;

/**
 * Polls the task states of connectors every 250 ms on a thread of its own and remembers every state
 * other than RUNNING (with its trace), for tests claiming that tasks never stopped. Watches workers
 * in this JVM ({@link ConnectPlatform}) or in their own ({@link ConnectWorkerProcess}).
 */
public final class TaskStateWatch implements AutoCloseable {
  private static final int MAX_REMEMBERED = 20;

  // a connector's tasks that are not RUNNING, described with their traces
  private final Function<String, List<String>> notRunningTasks;
  private final List<String> notRunning = Collections.synchronizedList(new ArrayList<>());
  private final List<String> failed = Collections.synchronizedList(new ArrayList<>());
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread thread;

  private TaskStateWatch(Function<String, List<String>> notRunningTasks, String... connectors) {
    this.notRunningTasks = notRunningTasks;
    thread =
        new Thread(
            () -> {
              while (!stop.get()) {
                for (String c : connectors) {
                  check(c);
                }
                try {
                  Thread.sleep(250);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "task-state-watch");
    thread.setDaemon(true);
  }

  public static TaskStateWatch start(ConnectPlatform connect, String... connectors) {
    return start(
        new TaskStateWatch(
            connector -> {
              List<String> found = new ArrayList<>();
              for (ConnectorStateInfo.TaskState t :
                  connect.cluster().connectorStatus(connector).tasks()) {
                if (!"RUNNING".equals(t.state())) {
                  found.add(connector + " task " + t.id() + " " + t.state() + " " + t.trace());
                }
              }
              return found;
            },
            connectors));
  }

  /** Watches connectors of a worker in its own JVM, through its REST API. */
  public static TaskStateWatch start(ConnectWorkerProcess worker, String... connectors) {
    return start(
        new TaskStateWatch(
            connector -> {
              JsonNode status = worker.status(connector);
              if (status == null) {
                throw new IllegalStateException("the worker does not know " + connector);
              }
              List<String> found = new ArrayList<>();
              for (JsonNode t : status.path("tasks")) {
                if (!"RUNNING".equals(t.path("state").asText())) {
                  found.add(
                      connector
                          + " task "
                          + t.path("id").asInt()
                          + " "
                          + t.path("state").asText()
                          + " "
                          + t.path("trace").asText());
                }
              }
              return found;
            },
            connectors));
  }

  private static TaskStateWatch start(TaskStateWatch watch) {
    watch.thread.start();
    return watch;
  }

  private void check(String connector) {
    try {
      notRunningTasks.apply(connector).forEach(this::remember);
    } catch (RuntimeException e) {
      remember(connector + ": status unavailable: " + e.getMessage());
    }
  }

  private void remember(String state) {
    if (notRunning.size() < MAX_REMEMBERED) {
      notRunning.add(state);
    }
    // kept apart: a flood of UNASSIGNED states (tasks Connect itself stops and starts) must not
    // hide a failure
    if (state.contains(" FAILED ") && failed.size() < MAX_REMEMBERED) {
      failed.add(state);
    }
  }

  /** Every state other than RUNNING seen so far (at most 20). */
  public List<String> notRunning() {
    synchronized (notRunning) {
      return List.copyOf(notRunning);
    }
  }

  /** Every FAILED task state seen so far (at most 20). */
  public List<String> failed() {
    synchronized (failed) {
      return List.copyOf(failed);
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    thread.interrupt();
    thread.join();
  }
}
