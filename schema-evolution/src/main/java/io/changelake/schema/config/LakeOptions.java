package io.changelake.schema.config;

import io.changelake.lsm.catalog.CatalogCredentials;
import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.fault.RetrySettings;
import java.time.Duration;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The keys the sink and the source declare alike because both talk to the same lake: the warehouse,
 * the catalog credentials and the retry settings. Names, defaults and descriptions are lsm-writer's
 * ({@link CatalogCredentials}, {@link RetrySettings}), which knows no Kafka types; this is where
 * they become {@code ConfigDef} keys, once for both connectors.
 */
public final class LakeOptions {
  /** Root of the Paimon warehouse: the one catalog option every connector must set. */
  public static final String WAREHOUSE = LakeCatalogs.PREFIX + "warehouse";

  private LakeOptions() {}

  /**
   * Where the warehouse is ({@code warehouseDoc}: what the connector does with it) and every
   * catalog credential, declared as a password so that Connect masks it in validation answers and
   * config logs; the catalog still reads the original strings.
   */
  public static void defineCatalog(OptionGroup group, String warehouseDoc) {
    group.define(
        WAREHOUSE,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new ConfigDef.NonEmptyString(),
        Importance.HIGH,
        warehouseDoc,
        Width.LONG,
        "Warehouse");
    for (CatalogCredentials.Option credential : CatalogCredentials.OPTIONS) {
      group.define(
          credential.key(),
          Type.PASSWORD,
          null,
          Importance.MEDIUM,
          credential.description() + CatalogCredentials.DOC_SUFFIX,
          Width.MEDIUM,
          credential.key());
    }
  }

  /** How transient failures are waited out. */
  public static void defineRetries(OptionGroup group) {
    group.define(
        RetrySettings.MAX_DURATION_MS,
        Type.LONG,
        RetrySettings.DEFAULT_MAX_DURATION_MS,
        ConfigDef.Range.atLeast(0),
        Importance.MEDIUM,
        RetrySettings.MAX_DURATION_DOC,
        Width.SHORT,
        "Retry duration");
    group.define(
        RetrySettings.BACKOFF_MS,
        Type.LONG,
        RetrySettings.DEFAULT_BACKOFF_MS,
        ConfigDef.Range.atLeast(10),
        Importance.LOW,
        RetrySettings.BACKOFF_DOC,
        Width.SHORT,
        "Retry backoff");
    group.define(
        RetrySettings.MAX_BACKOFF_MS,
        Type.LONG,
        RetrySettings.DEFAULT_MAX_BACKOFF_MS,
        ConfigDef.Range.atLeast(10),
        Importance.LOW,
        RetrySettings.MAX_BACKOFF_DOC,
        Width.SHORT,
        "Longest retry backoff");
  }

  /** The retry settings of a config whose definition includes {@link #defineRetries}. */
  public static RetrySettings retrySettings(AbstractConfig config) {
    return new RetrySettings(
        Duration.ofMillis(config.getLong(RetrySettings.MAX_DURATION_MS)),
        Duration.ofMillis(config.getLong(RetrySettings.BACKOFF_MS)),
        Duration.ofMillis(config.getLong(RetrySettings.MAX_BACKOFF_MS)));
  }
}
