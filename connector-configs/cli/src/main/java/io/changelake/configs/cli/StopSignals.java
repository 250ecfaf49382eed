package io.changelake.configs.cli;

import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;

/**
 * Stops the embedded platform on Ctrl-C (SIGINT) or SIGTERM <em>before</em> the JVM starts shutting
 * down, then exits. Stopping it from a shutdown hook instead races two hooks that Kafka Connect and
 * Jetty register themselves (Connect's stops the worker, Jetty's stops and destroys the REST
 * server): Connect's REST server, stopped by both at once, could keep its thread pool running and
 * {@code changelake up} waited for it forever (EmbeddedPlatformTest, 1 run in about 20). Once the
 * platform is stopped, their hooks find nothing left to stop. A second signal while stopping exits
 * at once.
 */
final class StopSignals {
  private StopSignals() {}

  /**
   * {@code stop} run at most once: the signal's thread and the shutdown hook may both call it; the
   * second waits until the first has finished.
   */
  static Runnable once(Runnable stop) {
    AtomicBoolean ran = new AtomicBoolean();
    return () -> {
      synchronized (ran) {
        if (ran.compareAndSet(false, true)) {
          stop.run();
        }
      }
    };
  }

  /**
   * Runs {@code stop} on a thread of its own at the first SIGINT or SIGTERM, then exits with 0. The
   * caller keeps a shutdown hook running the same {@code stop} for other ways the JVM ends; it must
   * do nothing the second time.
   */
  static void install(Runnable stop, PrintWriter out) {
    AtomicBoolean stopping = new AtomicBoolean();
    try {
      for (String name : new String[] {"INT", "TERM"}) {
        Signal.handle(
            new Signal(name),
            signal -> {
              if (!stopping.compareAndSet(false, true)) {
                out.println("Exiting without waiting for Connect and Kafka to stop.");
                out.flush();
                Runtime.getRuntime().halt(130);
              }
              Thread stopper =
                  new Thread(
                      () -> {
                        stop.run();
                        System.exit(ExitCodes.OK);
                      },
                      "changelake-stop");
              stopper.start();
            });
      }
    } catch (IllegalArgumentException e) {
      // the JVM keeps these signals (-Xrs): the shutdown hook stops the platform instead
    }
  }
}
