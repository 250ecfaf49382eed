package io.changelake.sink.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.sink.decode.ChangeEvent.RowChange;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The log position a record was emitted at (what tells a source log that restarted lower), read
 * from Debezium envelopes and from rows flattened with {@code add.fields}, for PostgreSQL and
 * MySQL, and left out where it would not grow with the stream.
 */
class StreamPositionTest {
  static final Schema PG_SOURCE =
      SchemaBuilder.struct()
          .field("name", Schema.STRING_SCHEMA)
          .field("db", Schema.STRING_SCHEMA)
          .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
          .field("ts_ms", Schema.INT64_SCHEMA)
          .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
          .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
          .build();
  static final Schema MYSQL_SOURCE =
      SchemaBuilder.struct()
          .field("name", Schema.STRING_SCHEMA)
          .field("db", Schema.STRING_SCHEMA)
          .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
          .field("ts_ms", Schema.INT64_SCHEMA)
          .field("file", Schema.STRING_SCHEMA)
          .field("pos", Schema.INT64_SCHEMA)
          .build();
  static final Schema FLAT =
      SchemaBuilder.struct()
          .field("id", Schema.INT32_SCHEMA)
          .field("__op", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
          .field("__source_ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
          .field("__lsn", Schema.OPTIONAL_INT64_SCHEMA)
          .field("__sequence", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__file", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__pos", Schema.OPTIONAL_INT64_SCHEMA)
          .build();

  static Struct pg(String snapshot, String sequence, long lsn) {
    return new Struct(PG_SOURCE)
        .put("name", "shop")
        .put("db", "inventory")
        .put("snapshot", snapshot)
        .put("ts_ms", 1_000L)
        .put("sequence", sequence)
        .put("lsn", lsn);
  }

  static Struct mysql(String snapshot, String file, long pos) {
    return new Struct(MYSQL_SOURCE)
        .put("name", "shop")
        .put("db", "inventory")
        .put("snapshot", snapshot)
        .put("ts_ms", 2_000L)
        .put("file", file)
        .put("pos", pos);
  }

  static Optional<StreamPosition> envelopeStream(Struct source, String op) {
    Schema envelope = DecodersTest.envelope(source.schema());
    Struct value =
        new Struct(envelope).put("after", DecodersTest.row(1, "a")).put("source", source);
    value.put("op", op);
    SinkRecord record = DecodersTest.record(DecodersTest.key(1), envelope, value, 7);
    return ((RowChange) new DebeziumEnvelopeDecoder().decode(record)).source().stream();
  }

  static Stream<Arguments> envelopes() {
    return Stream.of(
        // PostgreSQL: the last commit LSN, not the change's own LSN
        Arguments.of(
            pg("false", "[\"5000\",\"4200\"]", 4200),
            "u",
            Optional.of(new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, 5000))),
        // the first transaction after a fresh start has no last commit yet
        Arguments.of(pg("false", "[null,\"4200\"]", 4200), "c", Optional.empty()),
        // snapshot reads are positioned at the snapshot, not in the log
        Arguments.of(pg("true", "[\"5000\",\"9000\"]", 9000), "r", Optional.empty()),
        Arguments.of(pg("incremental", "[\"5000\",\"9000\"]", 9000), "r", Optional.empty()),
        Arguments.of(
            mysql("false", "mysql-bin.000042", 120),
            "d",
            Optional.of(SourcePosition.binlog("mysql-bin.000042", 120))),
        Arguments.of(mysql("last", "mysql-bin.000042", 120), "r", Optional.empty()));
  }

  @ParameterizedTest
  @MethodSource("envelopes")
  void envelopesCarryTheLogPositionTheyWereEmittedAt(
      Struct source, String op, Optional<SourcePosition> expected) {
    Optional<StreamPosition> stream = envelopeStream(source, op);
    assertThat(stream.map(StreamPosition::position)).isEqualTo(expected);
    stream.ifPresent(
        s -> {
          assertThat(s.source()).isEqualTo("shop/inventory");
          assertThat(s.sourceTimestamp()).isEqualTo(source.getInt64("ts_ms"));
        });
  }

  static Optional<StreamPosition> flatStream(Struct value) {
    SinkRecord record = DecodersTest.record(DecodersTest.key(1), FLAT, value, 7);
    return ((RowChange) new FlattenedDecoder("__op", "__deleted").decode(record)).source().stream();
  }

  @Test
  void flattenedRowsCarryItWhenAddFieldsHasTheSequenceOrTheBinlogAndTheSourceTime() {
    // add.fields=op,lsn,sequence,source.ts_ms
    Struct pg =
        new Struct(FLAT)
            .put("id", 1)
            .put("__op", "u")
            .put("__source_ts_ms", 1_000L)
            .put("__lsn", 4200L)
            .put("__sequence", "[\"5000\",\"4200\"]");
    assertThat(flatStream(pg))
        .contains(
            new StreamPosition(
                "/", new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, 5000), 1_000L));

    // add.fields=op,file,pos,source.ts_ms
    Struct mysql =
        new Struct(FLAT)
            .put("id", 1)
            .put("__op", "c")
            .put("__source_ts_ms", 2_000L)
            .put("__file", "mysql-bin.000003")
            .put("__pos", 77L);
    assertThat(flatStream(mysql).map(StreamPosition::position))
        .contains(SourcePosition.binlog("mysql-bin.000003", 77));

    // snapshot reads: none
    assertThat(flatStream(mysql.put("__op", "r"))).isEmpty();
  }

  @Test
  void flattenedRowsWithoutTheSourceTimeOrTheSequenceCarryNone() {
    // __ts_ms (add.fields=ts_ms) is Debezium's processing time, new on every resend: not used
    Struct processingTime =
        new Struct(FLAT)
            .put("id", 1)
            .put("__ts_ms", 1_000L)
            .put("__lsn", 4200L)
            .put("__sequence", "[\"5000\",\"4200\"]");
    assertThat(flatStream(processingTime)).isEmpty();

    // add.fields=lsn,source.ts_ms: a change's own LSN does not grow with the stream
    Struct lsnOnly =
        new Struct(FLAT).put("id", 1).put("__source_ts_ms", 1_000L).put("__lsn", 4200L);
    assertThat(flatStream(lsnOnly)).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("sequences")
  void theLastCommitLsnIsTheFirstElementOfTheSequence(String sequence, long expected) {
    assertThat(StreamPosition.lastCommitLsn(sequence)).isEqualTo(expected);
  }

  static Stream<Arguments> sequences() {
    long none = StreamPosition.NO_LSN;
    return Stream.of(
        // as Debezium's PostgreSQL connector writes it
        Arguments.of("[\"5000\",\"4200\"]", 5000L),
        Arguments.of(" [ \"5000\" , \"4200\" ] ", 5000L),
        Arguments.of("[5000,4200]", 5000L),
        Arguments.of("[\"5000\"]", 5000L),
        Arguments.of("[\"9223372036854775807\",\"1\"]", Long.MAX_VALUE),
        // the first transaction after a fresh start
        Arguments.of("[null,\"4200\"]", none),
        // malformed: none rather than a wrong number
        Arguments.of("", none),
        Arguments.of("[]", none),
        Arguments.of("5000", none),
        Arguments.of("[\"5000,\"4200\"]", none),
        Arguments.of("[\" 5000\",\"4200\"]", none),
        Arguments.of("[\"5000x\",\"4200\"]", none),
        Arguments.of("[-5000,4200]", none),
        Arguments.of("[\"92233720368547758070\",\"1\"]", none),
        Arguments.of("[\"5000\"", none));
  }

  @Test
  void marksStoreItAndReadItBack() {
    StreamPosition position =
        new StreamPosition(
            "shop|eu@1/inventory", SourcePosition.binlog("mysql-bin.000042", 120), 2_000L);
    assertThat(StreamPosition.parse(position.encode())).isEqualTo(position);
  }

  @Test
  void theHighMarkKeepsTheHighestPositionAndTheLatestSourceTimeOfOneSource() {
    StreamPosition a =
        new StreamPosition("s/db", new SourcePosition(SourcePosition.Kind.BINLOG, 10), 500);
    StreamPosition b =
        new StreamPosition("s/db", new SourcePosition(SourcePosition.Kind.BINLOG, 5), 900);
    assertThat(StreamPosition.highest(a, b))
        .isEqualTo(
            new StreamPosition("s/db", new SourcePosition(SourcePosition.Kind.BINLOG, 10), 900));
    // another source feeding the partition: not comparable, the newer replaces it
    StreamPosition other =
        new StreamPosition("t/db", new SourcePosition(SourcePosition.Kind.BINLOG, 1), 1);
    assertThat(StreamPosition.highest(a, other)).isEqualTo(other);
  }
}
