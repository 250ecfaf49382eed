package io.changelake.configs.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.catalog.CatalogCredentials;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the CLI treats as a secret, and how it keeps secrets out of the messages it prints. */
class SecretsTest {

  @Test
  void everyCredentialTheConnectorsDeclareIsMaskedByTheCli() {
    for (CatalogCredentials.Option option : CatalogCredentials.OPTIONS) {
      assertThat(Secrets.isSensitive(option.key())).as(option.key()).isTrue();
      assertThat(Secrets.display(option.key(), "s3cr3t-value")).isEqualTo(Secrets.HIDDEN);
    }
    // spellings Paimon also accepts
    assertThat(Secrets.isSensitive("paimon.fs.s3a.secret.key")).isTrue();
    assertThat(Secrets.isSensitive("paimon.s3.access.key")).isTrue();
  }

  @Test
  void keysNamingAProviderAreNotSecrets() {
    assertThat(Secrets.isSensitive("paimon.s3.aws.credentials.provider")).isFalse();
    assertThat(Secrets.isSensitive("paimon.token.provider")).isFalse();
    assertThat(Secrets.display("paimon.token.provider", "bear")).isEqualTo("bear");
  }

  @Test
  void referencesAreShownAndLiteralsRedactedFromMessages() {
    Map<String, String> config =
        Map.of(
            "paimon.jdbc.password", "hunter2-literal",
            "paimon.s3.secret-key", "${env:LAKE_S3_SECRET_KEY}",
            "paimon.warehouse", "s3://lake/warehouse");
    String message =
        "Invalid value hunter2-literal for configuration paimon.jdbc.password;"
            + " s3://lake/warehouse ${env:LAKE_S3_SECRET_KEY}";

    assertThat(Secrets.redact(message, config))
        .isEqualTo(
            "Invalid value [hidden] for configuration paimon.jdbc.password;"
                + " s3://lake/warehouse ${env:LAKE_S3_SECRET_KEY}");
    assertThat(Secrets.display("paimon.s3.secret-key", "${env:LAKE_S3_SECRET_KEY}"))
        .isEqualTo("${env:LAKE_S3_SECRET_KEY}");
  }
}
