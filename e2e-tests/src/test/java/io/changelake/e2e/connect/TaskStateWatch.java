package io.changelake.e2e.connect;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;

/**
 * Polls the task states of connectors every 250 ms on a thread of its own and remembers every state
 * other than RUNNING (with its trace), for tests claiming that tasks never stopped.
 */
public final class TaskStateWatch implements AutoCloseable {
  private static final int MAX_REMEMBERED = 20;

  private final ConnectPlatform connect;
  private final List<String> notRunning = Collections.synchronizedList(new ArrayList<>());
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread thread;

  private TaskStateWatch(ConnectPlatform connect, String... connectors) {
    this.connect = connect;
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
    TaskStateWatch watch = new TaskStateWatch(connect, connectors);
    watch.thread.start();
    return watch;
  }

  private void check(String connector) {
    ConnectorStateInfo info;
    try {
      info = connect.cluster().connectorStatus(connector);
    } catch (RuntimeException e) {
      remember(connector + ": status unavailable: " + e.getMessage());
      return;
    }
    for (ConnectorStateInfo.TaskState t : info.tasks()) {
      if (!"RUNNING".equals(t.state())) {
        remember(connector + " task " + t.id() + " " + t.state() + " " + t.trace());
      }
    }
  }

  private void remember(String state) {
    if (notRunning.size() < MAX_REMEMBERED) {
      notRunning.add(state);
    }
  }

  /** Every state other than RUNNING seen so far (at most 20). */
  public List<String> notRunning() {
    synchronized (notRunning) {
      return List.copyOf(notRunning);
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    thread.interrupt();
    thread.join();
  }
}
