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

  private final List<SchemaAndValue> keys = new ArrayList<>();
  private final List<SchemaAndValue> values = new ArrayList<>();
  private final List<Long> timestamps = new ArrayList<>();
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
    TopicStart.read(
        props.get(BOOTSTRAP_KEY),
        source,
        sample,
        r -> {
          keys.add(keyConverter.toConnectData(source, r.key()));
          values.add(valueConverter.toConnectData(source, r.value()));
          timestamps.add(r.timestamp());
        });
    if (keys.isEmpty()) {
      throw new IllegalStateException("no records in " + source + " to publish again");
    }
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    if (sent >= count) {
      Thread.sleep(100);
      return null;
    }
    int n = (int) Math.min(BATCH, count - sent);
    List<SourceRecord> batch = new ArrayList<>(n);
    for (int i = 0; i < n; i++, sent++) {
      int at = (int) (sent % keys.size());
      SchemaAndValue key = keys.get(at);
      SchemaAndValue value = values.get(at);
      batch.add(
          new SourceRecord(
              PARTITION,
              Map.of("position", sent),
              target,
              null,
              key.schema(),
              key.value(),
              value.schema(),
              value.value(),
              timestamps.get(at)));
    }
    return batch;
  }

  @Override
  public void stop() {}

  @Override
  public String version() {
    return "1";
  }
}
