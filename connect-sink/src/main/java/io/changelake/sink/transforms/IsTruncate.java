package io.changelake.sink.transforms;

import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.schema.debezium.EnvelopeFields;
import io.changelake.sink.Versions;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * True for Debezium truncate events (an envelope with {@code op = t}). Debezium's {@code
 * ExtractNewRecordState} drops truncates whatever its settings, so a sink that flattens records in
 * its own {@code transforms} never learns of them; this predicate, negated on the transform, lets
 * them pass as envelopes, which the sink's flattened decoding reads:
 *
 * <pre>
 * transforms.unwrap.predicate=truncate
 * transforms.unwrap.negate=true
 * predicates=truncate
 * predicates.truncate.type=io.changelake.sink.transforms.IsTruncate
 * </pre>
 */
public final class IsTruncate<R extends ConnectRecord<R>> implements Predicate<R>, Versioned {

  @Override
  public String version() {
    return Versions.VERSION;
  }

  @Override
  public boolean test(R record) {
    if (!(record.value() instanceof Struct value)) {
      return false;
    }
    Field op = value.schema().field(EnvelopeFields.OP);
    return op != null && DebeziumOp.TRUNCATE.code().equals(value.get(op));
  }

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public void configure(Map<String, ?> configs) {}

  @Override
  public void close() {}
}
