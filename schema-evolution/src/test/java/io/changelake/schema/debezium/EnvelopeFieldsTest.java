package io.changelake.schema.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.connector.AbstractSourceInfo;
import io.debezium.data.Envelope;
import org.junit.jupiter.api.Test;

/** The vocabulary is Debezium's own: checked against the constants of Debezium's code. */
class EnvelopeFieldsTest {

  @Test
  void envelopeFieldsAreDebeziumsFieldNames() {
    assertThat(EnvelopeFields.BEFORE).isEqualTo(Envelope.FieldName.BEFORE);
    assertThat(EnvelopeFields.AFTER).isEqualTo(Envelope.FieldName.AFTER);
    assertThat(EnvelopeFields.SOURCE).isEqualTo(Envelope.FieldName.SOURCE);
    assertThat(EnvelopeFields.OP).isEqualTo(Envelope.FieldName.OPERATION);
    assertThat(EnvelopeFields.TS_MS).isEqualTo(Envelope.FieldName.TIMESTAMP);
    assertThat(EnvelopeFields.isEnvelopeName(Envelope.schemaName("pg.public.orders"))).isTrue();
    assertThat(EnvelopeFields.isEnvelopeName("pg.public.orders.Value")).isFalse();
  }

  @Test
  void sourceBlockFieldsAreDebeziumsSourceInfoKeys() {
    assertThat(EnvelopeFields.Source.VERSION).isEqualTo(AbstractSourceInfo.DEBEZIUM_VERSION_KEY);
    assertThat(EnvelopeFields.Source.CONNECTOR)
        .isEqualTo(AbstractSourceInfo.DEBEZIUM_CONNECTOR_KEY);
    assertThat(EnvelopeFields.Source.NAME).isEqualTo(AbstractSourceInfo.SERVER_NAME_KEY);
    assertThat(EnvelopeFields.Source.TS_MS).isEqualTo(AbstractSourceInfo.TIMESTAMP_KEY);
    assertThat(EnvelopeFields.Source.SNAPSHOT).isEqualTo(AbstractSourceInfo.SNAPSHOT_KEY);
    assertThat(EnvelopeFields.Source.DB).isEqualTo(AbstractSourceInfo.DATABASE_NAME_KEY);
    assertThat(EnvelopeFields.Source.SCHEMA).isEqualTo(AbstractSourceInfo.SCHEMA_NAME_KEY);
    assertThat(EnvelopeFields.Source.TABLE).isEqualTo(AbstractSourceInfo.TABLE_NAME_KEY);
    assertThat(EnvelopeFields.Source.SEQUENCE).isEqualTo(AbstractSourceInfo.SEQUENCE_KEY);
  }

  @Test
  void operationCodesAreDebeziumsOperationCodes() {
    for (DebeziumOp op : DebeziumOp.values()) {
      assertThat(Envelope.Operation.forCode(op.code()).name()).isEqualTo(op.name());
    }
  }
}
