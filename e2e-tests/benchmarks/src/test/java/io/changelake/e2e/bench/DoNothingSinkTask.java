package io.changelake.e2e.bench;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/** Accepts every converted record and keeps nothing; the worker commits the offsets. */
public class DoNothingSinkTask extends SinkTask {
  private long records;

  @Override
  public void start(Map<String, String> props) {}

  @Override
  public void put(Collection<SinkRecord> batch) {
    // touch the values so no conversion result is dead code
    for (SinkRecord record : batch) {
      if (record.value() != null) {
        records++;
      }
    }
  }

  @Override
  public void stop() {}

  @Override
  public String version() {
    return "1";
  }
}
