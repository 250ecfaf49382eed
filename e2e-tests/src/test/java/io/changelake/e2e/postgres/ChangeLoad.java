package io.changelake.e2e.postgres;

import io.changelake.testkit.postgres.PostgresServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;

/**
 * Rounds of changes to a table {@code items (id int PRIMARY KEY, qty bigint, note text)}, one every
 * 200 ms on a thread of its own until closed: each round inserts 5 keys, updates a 30th of the rows
 * and deletes two keys (one of them inserted in the same round).
 */
public final class ChangeLoad implements AutoCloseable {
  private final AtomicInteger rounds = new AtomicInteger();
  private final AtomicBoolean stop = new AtomicBoolean();
  private volatile RuntimeException failure;
  private final Thread thread;

  private ChangeLoad(PostgresServer pg, String database) {
    thread =
        new Thread(
            () -> {
              while (!stop.get()) {
                int r = rounds.get() + 1;
                try {
                  pg.execute(
                      database,
                      "INSERT INTO items SELECT i, i, 'new %d' FROM generate_series(%d, %d) i"
                          .formatted(r, 1000 + r * 5, 1000 + r * 5 + 4),
                      "UPDATE items SET qty = qty + 1, note = 'round %d' WHERE id %% 30 = %d"
                          .formatted(r, r % 30),
                      "DELETE FROM items WHERE id IN (%d, %d)".formatted(r * 2, 1000 + r * 5));
                  rounds.set(r);
                  Thread.sleep(200);
                } catch (InterruptedException e) {
                  return;
                } catch (RuntimeException e) {
                  failure = e;
                  return;
                }
              }
            },
            "change-load-" + database);
    thread.setDaemon(true);
  }

  /** Creates {@code items} in {@code database} with 300 rows. */
  public static void createTable(PostgresServer pg, String database) {
    pg.execute(
        database,
        "CREATE TABLE items (id int PRIMARY KEY, qty bigint, note text)",
        "INSERT INTO items SELECT i, i, 'start' FROM generate_series(1, 300) i");
  }

  public static ChangeLoad start(PostgresServer pg, String database) {
    ChangeLoad load = new ChangeLoad(pg, database);
    load.thread.start();
    return load;
  }

  public int rounds() {
    return rounds.get();
  }

  /** Waits until {@code n} rounds are done; rethrows the load's failure, if any. */
  public void awaitRounds(int n) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> failure != null || rounds.get() >= n);
    if (failure != null) {
      throw failure;
    }
  }

  /** Lets the load run on for {@code duration}: the length of an outage the test causes. */
  public void runFor(Duration duration) throws InterruptedException {
    Thread.sleep(duration.toMillis());
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    thread.join();
  }
}
