package io.changelake.configs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.changelake.lsm.fault.OutageTracker;
import io.changelake.lsm.fault.RetrySettings;
import io.changelake.metrics.PluginMetricsRegistry;
import io.changelake.sink.metrics.SinkMetrics;
import io.changelake.source.metrics.SourceMetrics;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JMX exporter rules and the Grafana dashboard under deploy/monitoring use only metrics the
 * connectors register, every numeric metric they register is exported, and every exported one is on
 * a dashboard panel. The metrics are registered by the connectors' own metrics classes through
 * Connect's {@code PluginMetricsImpl} with the tags a 4.x worker gives a task and published by
 * Kafka's {@code JmxReporter} under the worker's {@code kafka.connect} prefix, so the MBean names
 * the rules are matched against are the ones a worker shows. The rules are applied as the exporter
 * applies them (pattern anchored as {@code ^.*(?:pattern).*$} against {@code domain<k=v,
 * ...><>attribute: value}, the name template substituted, characters Prometheus refuses replaced by
 * {@code _}).
 */
class MonitoringFilesTest {
  private static final Path MONITORING = Path.of("..", "deploy", "monitoring");
  private static final Path RULES = MONITORING.resolve("jmx-exporter/changelake.yml");
  private static final Path DASHBOARD = MONITORING.resolve("grafana/dashboards/changelake.json");
  private static final Pattern DASHBOARD_METRIC = Pattern.compile("\\bchangelake_[a-z0-9_]+");

  private static Metrics metrics;
  private static SinkMetrics sink;
  private static SourceMetrics source;

  @BeforeAll
  static void registerBothConnectorsMetrics() {
    metrics =
        new Metrics(
            new MetricConfig(),
            List.of(new JmxReporter()),
            Time.SYSTEM,
            new KafkaMetricsContext("kafka.connect"));
    OutageTracker outages =
        new OutageTracker(
            "t",
            new RetrySettings(Duration.ofSeconds(1), Duration.ofMillis(1), Duration.ofMillis(1)));
    sink =
        new SinkMetrics(
            PluginMetricsRegistry.wrap(
                new PluginMetricsImpl(metrics, taskTags("monitoring-test-sink"))));
    sink.table("shop.customers");
    sink.compaction("shop.customers");
    sink.outages(outages);
    source =
        new SourceMetrics(
            PluginMetricsRegistry.wrap(
                new PluginMetricsImpl(metrics, taskTags("monitoring-test-source"))));
    source.table("shop.customers");
    source.outages(outages);
  }

  @AfterAll
  static void close() {
    sink.close();
    source.close();
    metrics.close();
  }

  // the tags Connect gives a task's plugin metrics (ConnectMetrics.taskPluginTags)
  private static LinkedHashMap<String, String> taskTags(String connector) {
    LinkedHashMap<String, String> tags = new LinkedHashMap<>();
    tags.put("connector", connector);
    tags.put("task", "0");
    return tags;
  }

  /** One exported attribute: what the exporter matches rules against, and whether it is numeric. */
  private record Attribute(String name, String exporterInput, boolean numeric) {}

  private static List<Attribute> registeredAttributes() throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    List<Attribute> attributes = new ArrayList<>();
    for (ObjectName bean :
        server.queryNames(new ObjectName("kafka.connect:type=plugins,*"), null)) {
      if (!bean.getKeyProperty("connector").startsWith("monitoring-test-")) {
        continue;
      }
      String properties = bean.getKeyPropertyListString().replace(",", ", ");
      for (MBeanAttributeInfo info : server.getMBeanInfo(bean).getAttributes()) {
        Object value = server.getAttribute(bean, info.getName());
        attributes.add(
            new Attribute(
                info.getName(),
                bean.getDomain() + "<" + properties + "><>" + info.getName() + ": " + value,
                value instanceof Number || value instanceof Boolean));
      }
    }
    return attributes;
  }

  private record Rule(Pattern pattern, String name) {
    // the exporter's Prometheus-safe name: invalid characters become '_', runs of '_' collapse
    String exportedName(String input) {
      Matcher matcher = pattern.matcher(input);
      if (!matcher.matches()) {
        return null;
      }
      return matcher
          .replaceAll(name)
          .toLowerCase()
          .replaceAll("[^a-z0-9_:]", "_")
          .replaceAll("__+", "_");
    }
  }

  private static List<Rule> rules() throws Exception {
    JsonNode yaml = new YAMLMapper().readTree(RULES.toFile());
    assertThat(yaml.path("lowercaseOutputName").asBoolean()).isTrue();
    List<Rule> rules = new ArrayList<>();
    for (JsonNode rule : yaml.path("rules")) {
      rules.add(
          new Rule(
              Pattern.compile("^.*(?:" + rule.path("pattern").asText() + ").*$"),
              rule.path("name").asText()));
    }
    assertThat(rules).isNotEmpty();
    return rules;
  }

  /** The name the first matching rule gives the attribute (the exporter stops there), or null. */
  private static String exported(List<Rule> rules, Attribute attribute) {
    for (Rule rule : rules) {
      if (rule.pattern().matcher(attribute.exporterInput()).matches()) {
        return rule.exportedName(attribute.exporterInput());
      }
    }
    return null;
  }

  @Test
  void everyNumericMetricTheConnectorsRegisterIsExportedAndEveryRuleExportsOne() throws Exception {
    List<Rule> rules = rules();
    List<Attribute> attributes = registeredAttributes();
    assertThat(attributes).as("metrics registered by SinkMetrics and SourceMetrics").isNotEmpty();

    Set<String> notExported = new TreeSet<>();
    for (Attribute attribute : attributes) {
      String name = exported(rules, attribute);
      if (attribute.numeric() && name == null) {
        notExported.add(attribute.exporterInput());
      }
      if (name != null) {
        // the name the rules file promises: a rule whose alternatives list a gauge before a
        // sensor metric extending its name (x before x-avg) would export x-avg as x
        assertThat(name)
            .as(attribute.exporterInput())
            .isEqualTo("changelake_" + attribute.name().replace('-', '_'));
      }
    }
    assertThat(notExported).as("registered metrics no rule in " + RULES + " exports").isEmpty();

    for (Rule rule : rules) {
      assertThat(attributes)
          .as("rule %s matches no metric the connectors register", rule.pattern())
          .anyMatch(a -> rule.pattern().matcher(a.exporterInput()).matches());
    }
    // every attribute a rule names is one the connectors register (a renamed metric fails here)
    Set<String> registeredNames = new TreeSet<>();
    attributes.forEach(a -> registeredNames.add(a.name()));
    Matcher listed = Pattern.compile("><>\\(([^)]*)\\)").matcher(Files.readString(RULES));
    Set<String> named = new TreeSet<>();
    while (listed.find()) {
      named.addAll(List.of(listed.group(1).split("\\|")));
    }
    assertThat(registeredNames).containsAll(named);
  }

  @Test
  void everyMetricTheDashboardQueriesIsOneTheRulesExportAndEveryExportedOneIsGraphed()
      throws Exception {
    List<Rule> rules = rules();
    Set<String> exportedNames = new TreeSet<>();
    for (Attribute attribute : registeredAttributes()) {
      String name = exported(rules, attribute);
      if (name != null) {
        exportedNames.add(name);
      }
    }

    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    assertThat(dashboard.path("uid").asText()).isEqualTo("changelake");
    Set<String> queried = new TreeSet<>();
    List<String> expressions = new ArrayList<>();
    dashboard.findValues("expr").forEach(e -> expressions.add(e.asText()));
    dashboard
        .path("templating")
        .path("list")
        .forEach(v -> expressions.add(v.path("definition").asText()));
    for (String expression : expressions) {
      Matcher metric = DASHBOARD_METRIC.matcher(expression);
      while (metric.find()) {
        queried.add(metric.group());
      }
    }
    assertThat(queried).as("metrics the dashboard queries").hasSizeGreaterThan(10);
    assertThat(exportedNames).containsAll(queried);
    // and every exported metric is on a panel: a new metric comes with its graph
    assertThat(queried).as("metrics the dashboard graphs").containsAll(exportedNames);
    // each panel reads the Prometheus the compose profile provisions
    dashboard
        .findValues("datasource")
        .forEach(ds -> assertThat(ds.path("uid").asText()).isEqualTo("changelake-prometheus"));
    JsonNode datasources =
        new YAMLMapper()
            .readTree(
                MONITORING.resolve("grafana/provisioning/datasources/prometheus.yml").toFile());
    assertThat(datasources.path("datasources").get(0).path("uid").asText())
        .isEqualTo("changelake-prometheus");
  }
}
