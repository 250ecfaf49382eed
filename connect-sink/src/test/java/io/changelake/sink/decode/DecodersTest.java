package io.changelake.sink.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.sink.decode.ChangeEvent.RowChange;
import io.changelake.sink.transforms.IsTruncate;
import io.changelake.testkit.Change;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class DecodersTest {
  static final Schema KEY =
      SchemaBuilder.struct().name("db.public.t.Key").field("id", Schema.INT32_SCHEMA).build();
  static final Schema ROW =
      SchemaBuilder.struct()
          .name("db.public.t.Value")
          .optional()
          .field("id", Schema.INT32_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .build();
  static final Schema PG_SOURCE =
      SchemaBuilder.struct()
          .field("db", Schema.STRING_SCHEMA)
          .field("schema", Schema.STRING_SCHEMA)
          .field("table", Schema.STRING_SCHEMA)
          .field("ts_ms", Schema.INT64_SCHEMA)
          .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
          .build();
  static final Schema MYSQL_SOURCE =
      SchemaBuilder.struct()
          .field("db", Schema.STRING_SCHEMA)
          .field("table", Schema.OPTIONAL_STRING_SCHEMA)
          .field("ts_ms", Schema.INT64_SCHEMA)
          .field("file", Schema.STRING_SCHEMA)
          .field("pos", Schema.INT64_SCHEMA)
          .build();
  static final Schema TS_SOURCE =
      SchemaBuilder.struct()
          .field("db", Schema.STRING_SCHEMA)
          .field("ts_ms", Schema.INT64_SCHEMA)
          .build();

  static Schema envelope(Schema source) {
    return SchemaBuilder.struct()
        .name("db.public.t.Envelope")
        .field("before", ROW)
        .field("after", ROW)
        .field("source", source)
        .field("op", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
        .build();
  }

  static Struct row(int id, String name) {
    return new Struct(ROW).put("id", id).put("name", name);
  }

  static Struct key(int id) {
    return new Struct(KEY).put("id", id);
  }

  static Struct pgSource(long lsn) {
    return new Struct(PG_SOURCE)
        .put("db", "inventory")
        .put("schema", "public")
        .put("table", "t")
        .put("ts_ms", 1000L)
        .put("lsn", lsn);
  }

  static SinkRecord record(Object key, Schema valueSchema, Object value, long offset) {
    return new SinkRecord("topic", 2, KEY, key, valueSchema, value, offset, 5000L, null);
  }

  static SinkRecord pg(String op, Struct before, Struct after, long lsn) {
    Schema env = envelope(PG_SOURCE);
    Struct value =
        new Struct(env)
            .put("op", op)
            .put("before", before)
            .put("after", after)
            .put("source", pgSource(lsn));
    return record(key(1), env, value, 7);
  }

  static Stream<Arguments> envelopes() {
    return Stream.of(
        Arguments.of(pg("c", null, row(1, "a"), 100), DebeziumOp.CREATE, false, true),
        Arguments.of(pg("r", null, row(1, "a"), 100), DebeziumOp.READ, false, true),
        Arguments.of(pg("u", row(1, "a"), row(1, "b"), 100), DebeziumOp.UPDATE, true, true),
        // PostgreSQL's default replica identity: updates without a before image
        Arguments.of(pg("u", null, row(1, "b"), 100), DebeziumOp.UPDATE, false, true),
        Arguments.of(pg("d", row(1, "a"), null, 100), DebeziumOp.DELETE, true, false),
        // key-only before image
        Arguments.of(
            pg("d", new Struct(ROW).put("id", 1), null, 100), DebeziumOp.DELETE, true, false));
  }

  // envelopes only: before images
  @ParameterizedTest
  @MethodSource("envelopes")
  void decodesEnvelopes(SinkRecord record, DebeziumOp op, boolean hasBefore, boolean hasAfter) {
    for (EnvelopeDecoder decoder :
        new EnvelopeDecoder[] {new DebeziumEnvelopeDecoder(), new AutoDetectingDecoder(flat())}) {
      RowChange change = (RowChange) decoder.decode(record);

      assertThat(change.op()).isEqualTo(op);
      assertThat(change.before() != null).isEqualTo(hasBefore);
      assertThat(change.after() != null).isEqualTo(hasAfter);
      assertThat(change.key().get("id")).isEqualTo(1);
      assertThat(change.source().table()).contains("t");
      assertThat(change.source().schema()).contains("public");
      assertThat(change.source().position())
          .isEqualTo(new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, 100));
      assertThat(change.origin().describe()).isEqualTo("topic-2@7");
    }
  }

  static final DebeziumTable CUSTOMERS =
      DebeziumTable.builder("customers")
          .key("id", Schema.INT32_SCHEMA)
          .column("name", Schema.OPTIONAL_STRING_SCHEMA)
          .firstLsn(100)
          .build();

  /** The decoder the sink picks for a shape: {@code input.format} flattened, else envelope. */
  static List<EnvelopeDecoder> decoders(InputShape shape) {
    return shape.isFlattened()
        ? List.of(flat(), new AutoDetectingDecoder(flat()))
        : List.of(new DebeziumEnvelopeDecoder(), new AutoDetectingDecoder(flat()));
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void everyShapeDecodesToTheSameChange(InputShape shape) {
    Struct a = CUSTOMERS.row(1, "a");
    Struct b = CUSTOMERS.row(1, "b");
    List<Change> changes =
        List.of(
            CUSTOMERS.read(a),
            CUSTOMERS.create(a),
            CUSTOMERS.update(a, b),
            CUSTOMERS.update(null, b),
            CUSTOMERS.delete(b),
            CUSTOMERS.deleteKey(1));
    for (EnvelopeDecoder decoder : decoders(shape)) {
      long offset = 0;
      for (Change change : changes) {
        SinkRecord record = change.toSinkRecord(shape, 2, offset++);
        RowChange decoded = (RowChange) decoder.decode(record);
        String what = shape + " " + change.op() + " by " + decoder.getClass().getSimpleName();

        boolean tombstone = record.value() == null;
        DebeziumOp expected =
            tombstone || shape.isFlattened() && !shape.addsFields() && !shape.rewritesDeletes()
                ? change.op() == DebeziumOp.DELETE ? DebeziumOp.DELETE : DebeziumOp.UPDATE
                : change.op();
        assertThat(decoded.op()).as(what).isEqualTo(expected);
        assertThat(decoded.key().get("id")).as(what).isEqualTo(1);
        assertThat(decoded.origin().describe())
            .as(what)
            .isEqualTo(record.topic() + "-2@" + record.kafkaOffset());
        if (!tombstone) {
          Struct image = change.op() == DebeziumOp.DELETE ? change.before() : change.after();
          assertThat(decoded.row().get("name")).as(what).isEqualTo(image.get("name"));
          assertThat(decoded.row().schema().fields())
              .as(what)
              .extracting(f -> f.name())
              .containsExactly("id", "name");
        }
        if (!shape.isFlattened() || shape.addsFields() && !tombstone) {
          assertThat(decoded.source().table()).as(what).contains("customers");
          assertThat(decoded.source().position())
              .as(what)
              .isEqualTo(new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, change.lsn()));
        } else if (tombstone) {
          assertThat(decoded.source().position().isKnown()).as(what).isFalse();
        } else {
          assertThat(decoded.source().position())
              .as(what)
              .isEqualTo(
                  new SourcePosition(SourcePosition.Kind.RECORD_TIMESTAMP, record.timestamp()));
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void everyShapeDecodesATruncateAsATruncate(InputShape shape) {
    Change truncate = CUSTOMERS.truncate();
    for (EnvelopeDecoder decoder : decoders(shape)) {
      ChangeEvent.Truncate decoded =
          (ChangeEvent.Truncate) decoder.decode(truncate.toSinkRecord(shape, 0, 3));
      assertThat(decoded.positions())
          .startsWith(new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, truncate.lsn()));
    }
  }

  @Test
  void truncateAndTombstone() {
    Schema env = envelope(PG_SOURCE);
    Struct truncate = new Struct(env).put("op", "t").put("source", pgSource(5));

    assertThat(new DebeziumEnvelopeDecoder().decode(record(null, env, truncate, 1)))
        .isInstanceOf(ChangeEvent.Truncate.class);
    assertThat(new DebeziumEnvelopeDecoder().decode(record(key(1), null, null, 2)))
        .isInstanceOf(ChangeEvent.Tombstone.class);
  }

  static Stream<Arguments> positions() {
    Struct mysql =
        new Struct(MYSQL_SOURCE)
            .put("db", "shop")
            .put("ts_ms", 1000L)
            .put("file", "mysql-bin.000003")
            .put("pos", 4567L);
    Struct ts = new Struct(TS_SOURCE).put("db", "x").put("ts_ms", 1234L);
    return Stream.of(
        Arguments.of(
            MYSQL_SOURCE, mysql, new SourcePosition(SourcePosition.Kind.BINLOG, (3L << 32) | 4567)),
        Arguments.of(
            TS_SOURCE, ts, new SourcePosition(SourcePosition.Kind.SOURCE_TIMESTAMP, 1234)));
  }

  @ParameterizedTest
  @MethodSource("positions")
  void readsSourcePositions(Schema sourceSchema, Struct source, SourcePosition expected) {
    Schema env = envelope(sourceSchema);
    Struct value = new Struct(env).put("op", "c").put("after", row(1, "a")).put("source", source);

    RowChange change =
        (RowChange) new DebeziumEnvelopeDecoder().decode(record(key(1), env, value, 0));

    assertThat(change.source().position()).isEqualTo(expected);
  }

  @Test
  void binlogPositionsOrderAcrossFiles() {
    assertThat(SourcePosition.binlog("bin.000002", 10).value())
        .isLessThan(SourcePosition.binlog("bin.000003", 4).value());
    assertThat(SourcePosition.binlog("bin.000003", 4).value())
        .isLessThan(SourcePosition.binlog("bin.000003", 5).value());
  }

  static FlattenedDecoder flat() {
    return new FlattenedDecoder("__op", "__deleted");
  }

  static final Schema FLAT =
      SchemaBuilder.struct()
          .name("db.public.t.Value")
          .field("id", Schema.INT32_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__op", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__deleted", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__lsn", Schema.OPTIONAL_INT64_SCHEMA)
          .field("__source_ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
          .field("__table", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  static Stream<Arguments> flattened() {
    return Stream.of(
        Arguments.of("c", "false", 10L, DebeziumOp.CREATE, SourcePosition.Kind.POSTGRES_LSN),
        Arguments.of("u", "false", 10L, DebeziumOp.UPDATE, SourcePosition.Kind.POSTGRES_LSN),
        Arguments.of("d", "true", 10L, DebeziumOp.DELETE, SourcePosition.Kind.POSTGRES_LSN),
        Arguments.of(null, "true", null, DebeziumOp.DELETE, SourcePosition.Kind.SOURCE_TIMESTAMP),
        Arguments.of(null, null, null, DebeziumOp.UPDATE, SourcePosition.Kind.SOURCE_TIMESTAMP));
  }

  // flattened only: metadata combinations (op without __deleted, neither) the kit's shapes do not
  // all produce
  @ParameterizedTest
  @MethodSource("flattened")
  void decodesFlattenedRows(
      String op, String deleted, Long lsn, DebeziumOp expected, SourcePosition.Kind kind) {
    Struct value =
        new Struct(FLAT)
            .put("id", 1)
            .put("name", "a")
            .put("__op", op)
            .put("__deleted", deleted)
            .put("__lsn", lsn)
            .put("__source_ts_ms", 99L)
            .put("__table", "t");
    for (EnvelopeDecoder decoder :
        new EnvelopeDecoder[] {flat(), new AutoDetectingDecoder(flat())}) {
      RowChange change = (RowChange) decoder.decode(record(key(1), FLAT, value, 3));

      assertThat(change.op()).isEqualTo(expected);
      assertThat(change.row().schema().fields())
          .extracting(f -> f.name())
          .containsExactly("id", "name");
      assertThat(change.row().get("name")).isEqualTo("a");
      assertThat(change.source().position().kind()).isEqualTo(kind);
      assertThat(change.source().table()).contains("t");
    }
  }

  @Test
  void theSourceCommitTimeIsReadFromEnvelopesAndFlattenedAddFieldsNeverFromProcessingTime() {
    assertThat(
            ((RowChange) new DebeziumEnvelopeDecoder().decode(pg("c", null, row(1, "a"), 5)))
                .source()
                .sourceTimestamp())
        .hasValue(1000L);
    Struct withSourceTs = new Struct(FLAT).put("id", 1).put("__op", "c").put("__source_ts_ms", 99L);
    assertThat(((RowChange) flat().decode(record(key(1), FLAT, withSourceTs, 3))).source())
        .extracting(SourceInfo::sourceTimestamp)
        .isEqualTo(java.util.OptionalLong.of(99L));

    // add.fields=ts_ms is Debezium's processing time; ExtractNewRecordState's defaults add nothing
    Schema processingTimeOnly =
        SchemaBuilder.struct()
            .name("db.public.t.Value")
            .field("id", Schema.INT32_SCHEMA)
            .field("__ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    Schema defaults =
        SchemaBuilder.struct().name("db.public.t.Value").field("id", Schema.INT32_SCHEMA).build();
    for (Struct value :
        new Struct[] {
          new Struct(processingTimeOnly).put("id", 1).put("__ts_ms", 77L),
          new Struct(defaults).put("id", 1)
        }) {
      assertThat(
              ((RowChange) flat().decode(record(key(1), value.schema(), value, 3)))
                  .source()
                  .sourceTimestamp())
          .isEmpty();
    }
  }

  @Test
  void flattenedTombstoneWithKeyIsADeleteOfUnknownPosition() {
    RowChange change = (RowChange) flat().decode(record(key(9), null, null, 4));

    assertThat(change.op()).isEqualTo(DebeziumOp.DELETE);
    assertThat(change.key().get("id")).isEqualTo(9);
    assertThat(change.source().position().isKnown()).isFalse();
  }

  @Test
  void rejectsWhatItCannotRead() {
    assertThatThrownBy(
            () ->
                new DebeziumEnvelopeDecoder().decode(record(key(1), Schema.STRING_SCHEMA, "x", 0)))
        .isInstanceOf(DecodingException.class)
        .hasMessageContaining("not a Debezium change envelope");
    assertThatThrownBy(() -> flat().decode(record(key(1), Schema.STRING_SCHEMA, "x", 0)))
        .isInstanceOf(DecodingException.class)
        .hasMessageContaining("not a struct");
    Schema env = envelope(PG_SOURCE);
    Struct bad =
        new Struct(env).put("op", "x").put("after", row(1, "a")).put("source", pgSource(1));
    assertThatThrownBy(() -> new DebeziumEnvelopeDecoder().decode(record(key(1), env, bad, 0)))
        .hasMessageContaining("Unknown Debezium operation 'x'");
  }

  @Test
  void flattenedModeReadsATruncateEnvelopeThatThePredicateLetThrough() {
    Schema env = envelope(PG_SOURCE);
    Struct truncate = new Struct(env).put("op", "t").put("source", pgSource(55));
    SinkRecord record = record(null, env, truncate, 3);

    assertThat(new IsTruncate<SinkRecord>().test(record)).isTrue();
    assertThat(new IsTruncate<SinkRecord>().test(pg("c", null, row(1, "a"), 5))).isFalse();
    assertThat(new IsTruncate<SinkRecord>().test(record(key(1), null, null, 4))).isFalse();
    ChangeEvent.Truncate decoded = (ChangeEvent.Truncate) flat().decode(record);
    assertThat(decoded.positions())
        .containsExactly(
            new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, 55),
            new SourcePosition(SourcePosition.Kind.SOURCE_TIMESTAMP, 1000),
            new SourcePosition(SourcePosition.Kind.RECORD_TIMESTAMP, 5000));
    assertThat(decoded.position(SourcePosition.Kind.RECORD_TIMESTAMP))
        .contains(new SourcePosition(SourcePosition.Kind.RECORD_TIMESTAMP, 5000));
  }

  @Test
  void autoDetectionReadsATombstoneAsADeleteUnlessItFollowsAnEnvelopeDeleteOfItsKey() {
    AutoDetectingDecoder auto = new AutoDetectingDecoder(flat());
    // the first record after a restart: a flattened stream's delete
    assertThat(auto.decode(record(key(1), null, null, 0)))
        .isInstanceOf(RowChange.class)
        .extracting(e -> ((RowChange) e).op())
        .isEqualTo(DebeziumOp.DELETE);

    assertThat(auto.decode(pg("d", row(1, "a"), null, 100))).isInstanceOf(RowChange.class);
    assertThat(auto.decode(record(key(1), null, null, 8)))
        .as("Debezium's tombstone after the envelope delete")
        .isInstanceOf(ChangeEvent.Tombstone.class);

    assertThat(auto.decode(pg("d", row(1, "a"), null, 100))).isInstanceOf(RowChange.class);
    assertThat(auto.decode(record(key(2), null, null, 8)))
        .as("a tombstone of another key")
        .isInstanceOf(RowChange.class);
  }
}
