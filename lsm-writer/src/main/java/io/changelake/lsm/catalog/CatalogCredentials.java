package io.changelake.lsm.catalog;

import java.util.List;

/**
 * The Paimon catalog options that hold credentials, by their names without the {@code paimon.}
 * prefix. The connectors declare each as a password ({@code paimon.<option>}), so Connect shows
 * them as {@code [hidden]} in validation answers and the connectors' config logs, and the CLI masks
 * them. Other spellings Paimon also accepts (e.g. {@code fs.s3a.secret.key}) reach the catalog as
 * well but are neither logged nor returned by validation; the documentation names these.
 */
public final class CatalogCredentials {

  /** A credential option and what it is, for the option's documentation. */
  public record Option(String name, String description) {
    /** The connector key: {@code paimon.<name>}. */
    public String key() {
      return LakeCatalogs.PREFIX + name;
    }
  }

  public static final List<Option> OPTIONS =
      List.of(
          new Option("s3.access-key", "S3 access key id (paimon-s3)."),
          new Option("s3.secret-key", "S3 secret access key (paimon-s3)."),
          new Option(
              "s3.session.token",
              "S3 session token of temporary credentials (Hadoop S3A's fs.s3a.session.token)."),
          new Option("jdbc.password", "Password of the JDBC catalog's database user."),
          new Option("token", "Bearer token of a REST catalog (paimon.token.provider=bear)."),
          new Option(
              "dlf.access-key-secret", "Access key secret of a REST catalog on Alibaba Cloud DLF."),
          new Option(
              "dlf.security-token", "Security token of a REST catalog on Alibaba Cloud DLF."));

  /** Shared part of every credential option's documentation. */
  public static final String DOC_SUFFIX =
      " A password: [hidden] in Connect's validation answers and config logs and in the CLI."
          + " Connect still stores and returns it as written, so give a config-provider"
          + " reference (${env:...}, ${file:...}), not the secret.";

  private CatalogCredentials() {}
}
