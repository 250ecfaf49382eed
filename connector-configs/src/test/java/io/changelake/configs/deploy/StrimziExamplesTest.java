package io.changelake.configs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.changelake.configs.files.Secrets;
import io.changelake.sink.ChangelakeSinkConnector;
import io.changelake.source.ChangelakeSourceConnector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.runtime.SinkConnectorConfig;
import org.apache.kafka.connect.runtime.SourceConnectorConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Strimzi examples under deploy/kubernetes/strimzi parse, use Strimzi 1.x's API, install the
 * plugin with a checksum, name only keys the connectors define, pass the connectors' own
 * validation, and take every secret from a config provider the KafkaConnect enables, pointing at a
 * secret that exists (mounted or readable through the RBAC role).
 */
class StrimziExamplesTest {
  private static final Path STRIMZI = Path.of("..", "deploy", "kubernetes", "strimzi");
  private static final String STRIMZI_API = "kafka.strimzi.io/v1";
  private static final Pattern REFERENCE =
      Pattern.compile("\\$\\{([A-Za-z0-9_.-]+):([^:}]*):([^}]*)}");
  // keys Connect itself defines by prefix (enriched per connector at run time)
  private static final List<String> CONNECT_PREFIXES =
      List.of(
          "transforms.",
          "predicates.",
          "topic.creation.",
          "consumer.override.",
          "producer.override.");

  private static final List<JsonNode> DOCUMENTS = new ArrayList<>();

  @BeforeAll
  static void parseEveryYamlFile() throws IOException {
    YAMLMapper yaml = new YAMLMapper();
    try (Stream<Path> files = Files.list(STRIMZI)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        try (var parser = yaml.createParser(file.toFile())) {
          yaml.readValues(parser, JsonNode.class).readAll().stream()
              .filter(d -> !d.isNull() && !d.isMissingNode())
              .forEach(DOCUMENTS::add);
        }
      }
    }
    assertThat(DOCUMENTS)
        .extracting(d -> d.path("kind").asText())
        .contains("KafkaConnect", "KafkaConnector");
  }

  private static List<JsonNode> ofKind(String kind) {
    return DOCUMENTS.stream().filter(d -> d.path("kind").asText().equals(kind)).toList();
  }

  private static JsonNode connect() {
    assertThat(ofKind("KafkaConnect")).hasSize(1);
    return ofKind("KafkaConnect").get(0);
  }

  @Test
  void everyResourceUsesAnApiItsKindHas() {
    Map<String, String> apis =
        Map.of(
            "KafkaConnect", STRIMZI_API,
            "KafkaConnector", STRIMZI_API,
            "Role", "rbac.authorization.k8s.io/v1",
            "RoleBinding", "rbac.authorization.k8s.io/v1",
            "Secret", "v1");
    for (JsonNode document : DOCUMENTS) {
      String kind = document.path("kind").asText();
      assertThat(apis).as("kind %s", kind).containsKey(kind);
      assertThat(document.path("apiVersion").asText()).as(kind).isEqualTo(apis.get(kind));
      assertThat(document.path("metadata").path("name").asText()).as(kind).isNotBlank();
    }
  }

  @Test
  void theConnectClusterBuildsThePluginWithAChecksumOnTheBuildsKafkaVersion() {
    JsonNode spec = connect().path("spec");
    assertThat(
            connect()
                .path("metadata")
                .path("annotations")
                .path("strimzi.io/use-connector-resources")
                .asText())
        .isEqualTo("true");
    assertThat(spec.path("version").asText()).isEqualTo(AppInfoParser.getVersion());
    assertThat(spec.path("replicas").asInt()).isPositive();
    JsonNode changelake = null;
    for (JsonNode plugin : spec.path("build").path("plugins")) {
      if (plugin.path("name").asText().equals("changelake-connect")) {
        changelake = plugin.path("artifacts").get(0);
      }
    }
    assertThat(changelake).as("build.plugins has changelake-connect").isNotNull();
    assertThat(changelake.path("type").asText()).isEqualTo("zip");
    assertThat(changelake.path("url").asText())
        .matches("https://.+/changelake-kafka-connect-.+\\.zip");
    assertThat(changelake.path("sha512sum").asText())
        .as("a SHA-512 (128 hex digits) or the placeholder that says to put one")
        .matches("[0-9a-f]{128}|REPLACE_WITH_SHA512_OF_changelake-kafka-connect-.+\\.zip");
    assertThat(spec.path("metricsConfig").path("type").asText()).isEqualTo("jmxPrometheusExporter");
    assertThat(
            spec.path("metricsConfig")
                .path("valueFrom")
                .path("configMapKeyRef")
                .path("key")
                .asText())
        .isNotBlank();
  }

  @Test
  void theConnectorsAreChangelakesAndUseOnlyKeysTheyDefine() {
    List<JsonNode> connectors = ofKind("KafkaConnector");
    Set<String> classes = new HashSet<>();
    for (JsonNode connector : connectors) {
      String name = connector.path("metadata").path("name").asText();
      assertThat(connector.path("metadata").path("labels").path("strimzi.io/cluster").asText())
          .as(name)
          .isEqualTo(connect().path("metadata").path("name").asText());
      String connectorClass = connector.path("spec").path("class").asText();
      classes.add(connectorClass);
      Connector plugin = plugin(connectorClass);
      ConfigDef connectDef =
          connectorClass.equals(ChangelakeSinkConnector.class.getName())
              ? SinkConnectorConfig.configDef()
              : SourceConnectorConfig.configDef();
      Map<String, String> config = config(connector);
      for (String key : config.keySet()) {
        boolean defined =
            plugin.config().configKeys().containsKey(key)
                || connectDef.configKeys().containsKey(key)
                || key.startsWith("paimon.")
                || CONNECT_PREFIXES.stream().anyMatch(key::startsWith);
        assertThat(defined)
            .as("%s: key '%s' is defined by %s or Connect", name, key, connectorClass)
            .isTrue();
      }
      // Strimzi adds connector.class and tasks.max from spec.class and spec.tasksMax
      Map<String, String> sent = new LinkedHashMap<>(config);
      sent.put("connector.class", connectorClass);
      sent.put("tasks.max", connector.path("spec").path("tasksMax").asText());
      assertThat(
              plugin.validate(sent).configValues().stream()
                  .filter(v -> !v.errorMessages().isEmpty())
                  .map(v -> v.name() + ": " + v.errorMessages()))
          .as("%s passes %s's validation", name, connectorClass)
          .isEmpty();
    }
    assertThat(classes)
        .containsExactlyInAnyOrder(
            ChangelakeSinkConnector.class.getName(), ChangelakeSourceConnector.class.getName());
  }

  @Test
  void everySecretComesFromAProviderTheClusterEnablesAndNamesASecretItCanRead() {
    JsonNode spec = connect().path("spec");
    JsonNode workerConfig = spec.path("config");
    Set<String> providers = Set.of(workerConfig.path("config.providers").asText().split(","));
    assertThat(workerConfig.path("config.providers.secrets.class").asText())
        .isEqualTo("io.strimzi.kafka.KubernetesSecretConfigProvider");
    assertThat(workerConfig.path("config.providers.directory.class").asText())
        .isEqualTo("org.apache.kafka.common.config.provider.DirectoryConfigProvider");

    Map<String, String> mountedSecrets = new LinkedHashMap<>(); // mount path -> secret name
    Map<String, String> volumes = new LinkedHashMap<>();
    spec.path("template")
        .path("pod")
        .path("volumes")
        .forEach(
            v ->
                volumes.put(v.path("name").asText(), v.path("secret").path("secretName").asText()));
    spec.path("template")
        .path("connectContainer")
        .path("volumeMounts")
        .forEach(
            m ->
                mountedSecrets.put(
                    m.path("mountPath").asText(), volumes.get(m.path("name").asText())));
    Set<String> readableSecrets = new HashSet<>();
    ofKind("Role")
        .forEach(
            r ->
                r.path("rules")
                    .forEach(
                        rule ->
                            rule.path("resourceNames")
                                .forEach(n -> readableSecrets.add(n.asText()))));
    Map<String, Set<String>> secretKeys = new LinkedHashMap<>();
    for (JsonNode secret : ofKind("Secret")) {
      Set<String> keys = new HashSet<>();
      secret.path("stringData").fieldNames().forEachRemaining(keys::add);
      secretKeys.put(secret.path("metadata").path("name").asText(), keys);
    }

    for (JsonNode connector : ofKind("KafkaConnector")) {
      String name = connector.path("metadata").path("name").asText();
      config(connector)
          .forEach(
              (key, value) -> {
                if (Secrets.isSensitive(key)) {
                  assertThat(Secrets.isReference(value))
                      .as("%s: %s must be a config-provider reference", name, key)
                      .isTrue();
                }
                Matcher reference = REFERENCE.matcher(value);
                if (!reference.find()) {
                  return;
                }
                String provider = reference.group(1);
                assertThat(providers)
                    .as("%s: %s uses provider '%s'", name, key, provider)
                    .contains(provider);
                String secretName;
                if (provider.equals("directory")) {
                  assertThat(mountedSecrets)
                      .as("%s: %s reads a mounted folder", name, key)
                      .containsKey(reference.group(2));
                  secretName = mountedSecrets.get(reference.group(2));
                } else {
                  // ${secrets:<namespace>/<secret>:<key>}
                  secretName = reference.group(2).substring(reference.group(2).indexOf('/') + 1);
                  assertThat(readableSecrets)
                      .as("%s: the Role lets Connect read secret %s", name, secretName)
                      .contains(secretName);
                }
                assertThat(secretKeys.getOrDefault(secretName, Set.of()))
                    .as(
                        "%s: %s names key '%s' of secret %s",
                        name, key, reference.group(3), secretName)
                    .contains(reference.group(3));
              });
    }
  }

  @Test
  void theIamRoleExampleHasNoKeysAndNamesACredentialsProviderPaimonS3Ships() {
    JsonNode iam =
        ofKind("KafkaConnector").stream()
            .filter(c -> config(c).containsKey("paimon.s3.aws.credentials.provider"))
            .findFirst()
            .orElseThrow(
                () -> new AssertionError("no connector uses paimon.s3.aws.credentials.provider"));
    Map<String, String> config = config(iam);
    assertThat(config.keySet())
        .noneMatch(
            k ->
                k.contains("access-key")
                    || k.contains("secret-key")
                    || k.contains("access.key")
                    || k.contains("secret.key"));
    String provider = config.get("paimon.s3.aws.credentials.provider");
    // paimon-s3 loads S3A and the AWS SDK from its own plugin folder inside the jar
    String resource = "paimon-plugin-s3/" + provider.replace('.', '/') + ".class";
    assertThat(getClass().getClassLoader().getResource(resource))
        .as("%s is in paimon-s3 (as %s)", provider, resource)
        .isNotNull();
    assertThat(
            connect()
                .path("spec")
                .path("template")
                .path("serviceAccount")
                .path("metadata")
                .path("annotations")
                .path("eks.amazonaws.com/role-arn")
                .asText())
        .startsWith("arn:aws:iam::");
  }

  private static Connector plugin(String connectorClass) {
    if (connectorClass.equals(ChangelakeSinkConnector.class.getName())) {
      return new ChangelakeSinkConnector();
    }
    assertThat(connectorClass).isEqualTo(ChangelakeSourceConnector.class.getName());
    return new ChangelakeSourceConnector();
  }

  // Strimzi sends every value as a string, whatever YAML type it was written as
  private static Map<String, String> config(JsonNode connector) {
    Map<String, String> config = new LinkedHashMap<>();
    connector
        .path("spec")
        .path("config")
        .fields()
        .forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
    return config;
  }
}
