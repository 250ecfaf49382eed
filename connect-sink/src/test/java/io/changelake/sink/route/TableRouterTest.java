package io.changelake.sink.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.sink.decode.SourceInfo;
import io.changelake.sink.decode.SourcePosition;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class TableRouterTest {
  private static final SourceInfo PG =
      new SourceInfo(
          Optional.of("inventory"),
          Optional.of("public"),
          Optional.of("Orders"),
          new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, 42));

  static Stream<Arguments> routes() {
    return Stream.of(
        // format, rules, sanitize, topic, expected table
        Arguments.of("${topic}", "", true, "dbserver1.public.orders", "dbserver1_public_orders"),
        Arguments.of("${topic}", "", false, "dbserver1.public.orders", "dbserver1.public.orders"),
        Arguments.of("${source.table}", "", true, "any", "orders"),
        Arguments.of(
            "${source.db}_${source.schema}_${source.table}",
            "",
            true,
            "t",
            "inventory_public_orders"),
        Arguments.of("wide", "", true, "dbserver1.public.orders", "wide"),
        Arguments.of(
            "${topic}",
            "dbserver1\\.public\\.(.*)=>pg_$1",
            true,
            "dbserver1.public.orders",
            "pg_orders"),
        Arguments.of(
            "${topic}",
            "x\\.(.*)=>first_$1;dbserver1\\.(.*)\\.(.*)=>$2_from_$1",
            true,
            "dbserver1.public.items",
            "items_from_public"),
        Arguments.of(
            "fallback", "nomatch\\..*=>never", true, "dbserver1.public.orders", "fallback"),
        Arguments.of("${topic}", "", true, "2024-Orders", "_2024_orders"),
        Arguments.of("${topic}", "", true, "Ünïcode Topic", "_n_code_topic"));
  }

  @ParameterizedTest
  @MethodSource("routes")
  void routesTopicsToTables(
      String format, String rules, boolean sanitize, String topic, String expected) {
    TableRouter router =
        new TableRouter("lake", RegexRules.parse(rules), TableNameFormat.parse(format), sanitize);

    assertThat(router.route(topic, PG).getObjectName()).isEqualTo(expected);
    assertThat(router.route(topic, PG).getDatabaseName()).isEqualTo("lake");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "${table}|Unknown placeholder ${table}",
        "${topic|Unclosed placeholder",
        "' '|empty",
      })
  void rejectsBadFormats(String format, String message) {
    assertThatThrownBy(() -> TableNameFormat.parse(format)).hasMessageContaining(message);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "no-arrow|not 'regex=>replacement'",
        "(unclosed=>t|invalid regex",
        "a(.*)=>t_$2|refers to a group",
        "abc=>|empty table name",
      })
  void rejectsBadRules(String rules, String message) {
    assertThatThrownBy(() -> RegexRules.parse(rules)).hasMessageContaining(message);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "${topic}|''|dbserver1.public.orders|dbserver1_public_orders",
        "lake_${topic}_v2|''|dbserver1.public.orders|lake_dbserver1_public_orders_v2",
        "wide|''|dbserver1.public.orders|wide",
        "${source.table}|''|dbserver1.public.orders|",
        "${topic}_${source.table}|''|dbserver1.public.orders|",
        "${source.table}|dbserver1\\.public\\.(.*)=>pg_$1|dbserver1.public.orders|pg_orders",
        "${source.table}|dbserver1\\.public\\.(.*)=>pg_$1|other.public.orders|",
      })
  void knowsTheOneTableOfATopicWhenTheTopicAloneNamesIt(
      String format, String rules, String topic, String table) {
    TableRouter router =
        new TableRouter("lake", RegexRules.parse(rules), TableNameFormat.parse(format), true);

    assertThat(router.tableOfTopic(topic))
        .isEqualTo(Optional.ofNullable(table).map(t -> Identifier.create("lake", t)));
    if (table != null) {
      assertThat(router.tableOfTopic(topic)).contains(router.route(topic, PG));
    }
  }

  @Test
  void sourcePlaceholderWithoutSourceBlockNamesTheFix() {
    TableRouter router =
        new TableRouter(
            "lake", RegexRules.parse(""), TableNameFormat.parse("${source.table}"), true);

    assertThatThrownBy(() -> router.route("flat.topic", SourceInfo.none(0)))
        .hasMessageContaining("source.table")
        .hasMessageContaining("use ${topic} or route.regex.rules");
  }

  @Test
  void routesEachSourceTableOfATopicToItsOwnTableAlsoAfterRememberingARoute() {
    TableRouter router =
        new TableRouter(
            "lake", RegexRules.parse(""), TableNameFormat.parse("${source.table}"), true);
    SourceInfo items =
        new SourceInfo(
            Optional.of("inventory"),
            Optional.of("public"),
            Optional.of("Items"),
            new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, 43));

    assertThat(router.route("shared.topic", PG).getObjectName()).isEqualTo("orders");
    assertThat(router.route("shared.topic", items).getObjectName()).isEqualTo("items");
    assertThat(router.route("shared.topic", PG).getObjectName()).isEqualTo("orders");
    assertThat(router.route("other.topic", items).getObjectName()).isEqualTo("items");
  }

  @Test
  void routesCorrectlyPastTheNumberOfRememberedRoutes() {
    TableRouter router =
        new TableRouter("lake", RegexRules.parse(""), TableNameFormat.parse("${topic}"), true);

    for (int i = 0; i < TableRouter.MAX_REMEMBERED + 10; i++) {
      assertThat(router.route("topic" + i, PG).getObjectName()).isEqualTo("topic" + i);
    }
    assertThat(router.route("topic0", PG).getObjectName()).isEqualTo("topic0");
  }

  @Test
  void aRecordThatCannotBeRoutedFailsEveryTime() {
    TableRouter router =
        new TableRouter(
            "lake", RegexRules.parse(""), TableNameFormat.parse("${source.table}"), true);

    assertThat(router.route("t", PG).getObjectName()).isEqualTo("orders");
    for (int attempt = 0; attempt < 2; attempt++) {
      assertThatThrownBy(() -> router.route("t", SourceInfo.none(0)))
          .hasMessageContaining("source.table");
    }
  }
}
