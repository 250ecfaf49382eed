package io.changelake.e2e.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A distributed Connect worker in its own JVM ({@code ConnectDistributed} with a properties file),
 * so a test can kill it with SIGKILL the way an operator's node dies, and start it again on the
 * same port and group. It sees the test classpath (Kafka, Connect, Debezium) and loads Changelake
 * only from {@code plugin.path}, like a real deployment.
 */
public final class ConnectWorkerProcess implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** lsm-writer's switch for the two-generation seal (see connect-sink's README). */
  private static final String FLUSH_OFF_THREAD = "changelake.writer.flush-off-thread";

  private final Path dir;
  private final Path propsFile;
  private final int restPort;
  private final String maxHeap;
  private final String classPath;
  private final List<String> jvmArgs;
  private final List<Path> logs = new ArrayList<>();
  private Process process;

  private ConnectWorkerProcess(
      Path dir,
      Path propsFile,
      int restPort,
      String maxHeap,
      String classPath,
      List<String> jvmArgs) {
    this.dir = dir;
    this.propsFile = propsFile;
    this.restPort = restPort;
    this.maxHeap = maxHeap;
    this.classPath = classPath;
    this.jvmArgs = List.copyOf(jvmArgs);
  }

  /**
   * Writes the worker config into {@code dir} and starts the worker.
   *
   * @param groupId workers with the same group form one cluster
   * @param extraProps added to (and winning over) the shared worker settings
   */
  public static ConnectWorkerProcess start(
      Path dir, String bootstrapServers, String groupId, Map<String, String> extraProps) {
    return start(
        dir,
        bootstrapServers,
        groupId,
        extraProps,
        System.getProperty("java.class.path"),
        List.of());
  }

  /**
   * Like {@link #start(Path, String, String, Map)}, on another worker class path (e.g. an older
   * Connect release) and with extra JVM arguments.
   */
  public static ConnectWorkerProcess start(
      Path dir,
      String bootstrapServers,
      String groupId,
      Map<String, String> extraProps,
      String classPath,
      List<String> jvmArgs) {
    try {
      Files.createDirectories(dir);
      int port = freePort();
      Map<String, String> props = new HashMap<>(PluginWorkers.workerProps());
      props.put("bootstrap.servers", bootstrapServers);
      props.put("group.id", groupId);
      props.put("config.storage.topic", groupId + "-configs");
      props.put("offset.storage.topic", groupId + "-offsets");
      props.put("status.storage.topic", groupId + "-status");
      props.put("config.storage.replication.factor", "1");
      props.put("offset.storage.replication.factor", "1");
      props.put("status.storage.replication.factor", "1");
      props.put("offset.storage.partitions", "5");
      props.put("status.storage.partitions", "1");
      props.put("listeners", "http://127.0.0.1:" + port);
      // a killed worker's tasks must move on soon, not after the default 5 minutes
      props.put("session.timeout.ms", "6000");
      props.put("heartbeat.interval.ms", "1000");
      props.putAll(extraProps);
      Properties p = new Properties();
      p.putAll(props);
      Path file = dir.resolve("worker.properties");
      try (Writer w = Files.newBufferedWriter(file)) {
        p.store(w, "Connect worker for an e2e test");
      }
      ConnectWorkerProcess worker =
          new ConnectWorkerProcess(dir, file, port, "-Xmx512m", classPath, jvmArgs);
      worker.launch();
      return worker;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts the JVM (again, after {@link #kill()}) and waits until its REST API answers. */
  public void launch() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("worker already running");
    }
    try {
      Path log = dir.resolve("worker-" + (logs.size() + 1) + ".log");
      logs.add(log);
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      List<String> cmd = new ArrayList<>();
      cmd.addAll(
          List.of(
              java,
              maxHeap,
              "-XX:+UseSerialGC",
              "-XX:TieredStopAtLevel=1",
              // the worker option the README recommends: the sink's committer and compactor
              // threads then run below the task threads (niceness below)
              "-XX:ThreadPriorityPolicy=1",
              "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp"))));
      // the writer's escape hatch, when the test JVM was given it, holds for child workers too
      String flushOffThread = System.getProperty(FLUSH_OFF_THREAD);
      if (flushOffThread != null) {
        cmd.add("-D" + FLUSH_OFF_THREAD + "=" + flushOffThread);
      }
      cmd.addAll(jvmArgs);
      cmd.addAll(
          List.of(
              "-cp",
              classPath,
              "org.apache.kafka.connect.cli.ConnectDistributed",
              propsFile.toString()));
      process =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (!ready()) {
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "Connect worker exited with "
                  + process.exitValue()
                  + "; log "
                  + log
                  + ":\n"
                  + tail(log));
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Connect worker not ready in 120 s; log " + log);
        }
        Thread.sleep(300);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** SIGKILL: no shutdown hook, no task stop, no offset flush. */
  public void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly(); // SIGKILL on Linux
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A graceful stop (SIGTERM, Connect's shutdown hook runs). */
  public void stop() {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public boolean alive() {
    return process != null && process.isAlive();
  }

  /**
   * The Linux niceness of each live thread of the worker whose OS name starts with {@code prefix},
   * as {@code ps -L -o nice,comm} shows them: thread name to niceness (the kernel keeps the first
   * 15 characters of a Java thread's name; threads of one name are listed once, with the highest).
   */
  public Map<String, Integer> threadNiceness(String prefix) {
    Map<String, Integer> niceness = new TreeMap<>();
    try (Stream<Path> threads =
        Files.list(Path.of("/proc", Long.toString(process.pid()), "task"))) {
      for (Path thread : (Iterable<Path>) threads::iterator) {
        String name;
        String stat;
        try {
          name = Files.readString(thread.resolve("comm")).strip();
          stat = Files.readString(thread.resolve("stat"));
        } catch (IOException gone) {
          continue; // the thread ended meanwhile
        }
        if (name.startsWith(prefix)) {
          // stat's fields after "(comm) ": state is the first, nice the 17th
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          niceness.merge(name, Integer.parseInt(fields[16]), Math::max);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return niceness;
  }

  public String url() {
    return "http://127.0.0.1:" + restPort;
  }

  /** A GET of the worker's REST API, e.g. {@code /connector-plugins}, as JSON. */
  public JsonNode get(String path) {
    HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(url() + path)).GET());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(
          "GET " + path + " failed: " + r.statusCode() + " " + r.body());
    }
    try {
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Creates or updates a connector ({@code PUT /connectors/{name}/config}). */
  public void putConnector(String name, Map<String, String> config) {
    HttpResponse<String> r =
        send(
            HttpRequest.newBuilder(URI.create(url() + "/connectors/" + name + "/config"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(toJson(config))));
    if (r.statusCode() >= 300) {
      throw new IllegalStateException(
          "PUT connector " + name + " failed: " + r.statusCode() + " " + r.body());
    }
  }

  /** The connector's status document, or null while the worker does not know it. */
  public JsonNode status(String name) {
    HttpResponse<String> r =
        send(HttpRequest.newBuilder(URI.create(url() + "/connectors/" + name + "/status")).GET());
    if (r.statusCode() != 200) {
      return null;
    }
    try {
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** True when the connector and at least {@code tasks} tasks are RUNNING. */
  public boolean running(String name, int tasks) {
    JsonNode s = status(name);
    if (s == null || !"RUNNING".equals(s.path("connector").path("state").asText())) {
      return false;
    }
    int running = 0;
    for (JsonNode t : s.path("tasks")) {
      if ("RUNNING".equals(t.path("state").asText())) {
        running++;
      }
    }
    return running >= tasks;
  }

  /** Log files of every launch, newest last, for failure messages. */
  public List<Path> logs() {
    return List.copyOf(logs);
  }

  /**
   * The first {@code max} lines of the newest log that contain one of {@code markers}, for a
   * failure message that tells what a task did from its start, which a log's tail no longer shows.
   */
  public String linesOfLog(int max, String... markers) {
    if (logs.isEmpty()) {
      return "";
    }
    List<String> kept =
        readLines(logs.get(logs.size() - 1)).stream()
            .filter(line -> java.util.Arrays.stream(markers).anyMatch(line::contains))
            .limit(max)
            .toList();
    return String.join("\n", kept);
  }

  /** The last lines of the newest log. */
  public String tailOfLog() {
    return logs.isEmpty() ? "" : tail(logs.get(logs.size() - 1));
  }

  /**
   * For a test that waited in vain: the newest log's last lines without Paimon's orphan-file
   * warnings (a stack trace for each table folder Paimon never created, every maintenance run,
   * which fills a tail), then the stacks of the tasks' and Changelake's threads from a thread dump
   * the worker prints on SIGQUIT, so a stuck round shows where it waits.
   */
  public String diagnosis() {
    if (logs.isEmpty()) {
      return "";
    }
    Path log = logs.get(logs.size() - 1);
    List<String> before = readLines(log);
    if (process != null && process.isAlive()) {
      try {
        new ProcessBuilder("kill", "-QUIT", Long.toString(process.pid())).start().waitFor();
        // the JVM writes the dump asynchronously; HotSpot ends it with its JNI reference count
        Awaitility.await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(100))
            .until(
                () ->
                    readLines(log).stream()
                        .skip(before.size())
                        .anyMatch(line -> line.startsWith("JNI global refs")));
      } catch (ConditionTimeoutException e) {
        // report whatever part of the dump was written
      } catch (IOException e) {
        return tailWithoutNoise(before) + "\n(no thread dump: " + e.getMessage() + ")";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    List<String> dump = readLines(log);
    return tailWithoutNoise(before)
        + "\n--- threads of tasks and Changelake ---\n"
        + interestingThreads(dump.subList(Math.min(before.size(), dump.size()), dump.size()));
  }

  private static String tailWithoutNoise(List<String> lines) {
    List<String> kept = new ArrayList<>();
    boolean inNoise = false;
    for (String line : lines) {
      if (line.contains("OrphanFilesClean - IOException during check dirStatus")) {
        inNoise = true;
      } else if (!inNoise || !(line.startsWith("\tat ") || line.startsWith("java.io."))) {
        inNoise = false;
        kept.add(line);
      }
    }
    return String.join("\n", kept.subList(Math.max(0, kept.size() - 60), kept.size()));
  }

  /**
   * The thread-dump blocks (from a quoted name to the blank line) of task and Changelake threads.
   */
  private static String interestingThreads(List<String> dump) {
    StringBuilder out = new StringBuilder();
    boolean keep = false;
    for (String line : dump) {
      if (line.startsWith("\"")) {
        keep = line.startsWith("\"task-thread-") || line.startsWith("\"changelake");
      }
      if (keep) {
        out.append(line).append('\n');
      }
    }
    return out.toString();
  }

  private static List<String> readLines(Path log) {
    try {
      return Files.readAllLines(log);
    } catch (IOException e) {
      return List.of("(log unreadable: " + e.getMessage() + ")");
    }
  }

  @Override
  public void close() {
    stop();
  }

  private boolean ready() {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(url() + "/connectors"))
                  .timeout(Duration.ofSeconds(5))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return HTTP.send(
          request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String toJson(Map<String, String> config) {
    try {
      return JSON.writeValueAsString(config);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  /** A TCP port nobody listens on right now. */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
