package io.changelake.e2e.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * Publishes records another source already published, as Connect data held in memory: at start
 * (before the benchmark's clock, which starts at the first record on the target topic) it reads up
 * to {@value #SAMPLE_KEY} records of {@value #SOURCE_TOPIC_KEY} and converts them back with
 * JsonConverter (the caching converter writes the same bytes, so its runs read back alike; one
 * converter instance hands every record of a schema the same schema instance, as a real source
 * does). poll() then returns them in batches, in turn past the sample, as fast as the worker takes
 * them: what is left is the worker's converting, sending and offset bookkeeping.
 */
public class DoNothingSourceTask extends SourceTask {
  static final String BOOTSTRAP_KEY = "bench.bootstrap.servers";
  static final String SOURCE_TOPIC_KEY = "bench.source.topic";
  static final String TARGET_TOPIC_KEY = "bench.target.topic";
  static final String COUNT_KEY = "bench.records";
  static final String SAMPLE_KEY = "bench.sample";

  /** The Changelake source's default batch.size, so both hand the worker batches alike. */
  private static final int BATCH = 2_048;

  // one source partition, its offset the record's position: trivial, but committed by the worker
  // as a real source's are
  private static final Map<String, ?> PARTITION = Map.of("do-nothing", "0");

  /** A record as Connect data, as a source hands it over. */
  private record Held(SchemaAndValue key, SchemaAndValue value, long timestamp) {}

  // dropped by stop(), which runs on another thread than poll(): the worker may keep a stopped task
  // object, and 10,000 held records left in the heap would be the next case's cost
  private volatile List<Held> held;
  private String target;
  private long count;
  private long sent;

  @Override
  public void start(Map<String, String> props) {
    target = props.get(TARGET_TOPIC_KEY);
    count = Long.parseLong(props.get(COUNT_KEY));
    String source = props.get(SOURCE_TOPIC_KEY);
    int sample = Integer.parseInt(props.get(SAMPLE_KEY));
    JsonConverter keyConverter = new JsonConverter();
    keyConverter.configure(Map.of("schemas.enable", "true"), true);
    JsonConverter valueConverter = new JsonConverter();
    valueConverter.configure(Map.of("schemas.enable", "true"), false);
    List<Held> records = new ArrayList<>();
    TopicStart.read(
        props.get(BOOTSTRAP_KEY),
        source,
        sample,
        r ->
            records.add(
                new Held(
                    keyConverter.toConnectData(source, r.key()),
                    valueConverter.toConnectData(source, r.value()),
                    r.timestamp())));
    if (records.isEmpty()) {
      throw new IllegalStateException("no records in " + source + " to publish again");
    }
    held = records;
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    List<Held> records = held;
    if (records == null || sent >= count) {
      Thread.sleep(100);
      return null;
    }
    int n = (int) Math.min(BATCH, count - sent);
    List<SourceRecord> batch = new ArrayList<>(n);
    for (int i = 0; i < n; i++, sent++) {
      Held r = records.get((int) (sent % records.size()));
      batch.add(
          new SourceRecord(
              PARTITION,
              Map.of("position", sent),
              target,
              null,
              r.key().schema(),
              r.key().value(),
              r.value().schema(),
              r.value().value(),
              r.timestamp()));
    }
    return batch;
  }

  @Override
  public void stop() {
    held = null;
  }

  @Override
  public String version() {
    return "1";
  }
}
