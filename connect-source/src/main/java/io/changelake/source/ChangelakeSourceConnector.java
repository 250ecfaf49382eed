package io.changelake.source;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.RegisteredConsumer;
import io.changelake.source.assign.TableAssignment;
import io.changelake.source.assign.TableDiscovery;
import io.changelake.source.assign.TaskAssigner;
import io.changelake.source.offset.ConsumerExpiry;
import io.changelake.source.offset.ConsumerHygiene;
import io.changelake.source.offset.SourceOffsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the changelogs of Paimon tables to Kafka topics. Watches the catalog so tables created
 * later (matching the list or regex) are picked up without a restart.
 */
public final class ChangelakeSourceConnector extends SourceConnector {
  private static final Logger LOG = LoggerFactory.getLogger(ChangelakeSourceConnector.class);

  /** Discovery failures in a row before the connector reports itself failed. */
  private static final int MAX_DISCOVERY_FAILURES = 5;

  private Map<String, String> props;
  private Catalog catalog;
  private TableDiscovery discovery;
  private ScheduledExecutorService monitor;
  private volatile Map<Identifier, Integer> tables;

  /** The bucket sets of the latest task configs, per fixed-bucket table. */
  private volatile Map<Identifier, List<Set<Integer>>> assigned = Map.of();

  private int discoveryFailures;

  @Override
  public String version() {
    return Versions.VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    this.props = Map.copyOf(props);
    ChangelakeSourceConfig config = new ChangelakeSourceConfig(props);
    catalog = LakeCatalogs.open(props);
    discovery = new TableDiscovery(catalog, config.tableSelector());
    tables = discovery.discover();
    LOG.info("Publishing the changelogs of {} table(s): {}", tables.size(), tables.keySet());
    boundConsumers(tables.keySet());
    monitor =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread =
                  new Thread(runnable, "changelake-source-discovery-" + connectorName());
              thread.setDaemon(true);
              return thread;
            });
    long interval = config.discoveryInterval().toMillis();
    monitor.scheduleWithFixedDelay(this::rediscover, interval, interval, TimeUnit.MILLISECONDS);
  }

  private void rediscover() {
    try {
      Map<Identifier, Integer> current = discovery.discover();
      discoveryFailures = 0;
      if (!current.equals(tables)) {
        LOG.info("Tables changed from {} to {}; reassigning tasks", tables, current);
        boundConsumers(current.keySet());
        tables = current;
        context().requestTaskReconfiguration();
      } else {
        removeSpanningConsumers();
      }
    } catch (RuntimeException e) {
      discoveryFailures++;
      LOG.warn(
          "Listing the catalog for new tables failed ({} of {} tries in a row)",
          discoveryFailures,
          MAX_DISCOVERY_FAILURES,
          e);
      if (discoveryFailures >= MAX_DISCOVERY_FAILURES) {
        context()
            .raiseError(
                new ConnectException(
                    "Connector "
                        + connectorName()
                        + " could not list the Paimon catalog "
                        + MAX_DISCOVERY_FAILURES
                        + " times in a row; check the paimon.* settings and the warehouse's"
                        + " availability",
                    e));
      }
    }
  }

  @Override
  public Class<? extends Task> taskClass() {
    return ChangelakeSourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> configs = new ArrayList<>();
    Map<Identifier, List<Set<Integer>>> sets = new HashMap<>();
    List<List<TableAssignment>> split = TaskAssigner.assign(tables, maxTasks);
    for (List<TableAssignment> assignments : split) {
      for (TableAssignment assignment : assignments) {
        if (!assignment.buckets().isAll()) {
          sets.computeIfAbsent(assignment.table(), t -> new ArrayList<>())
              .add(assignment.buckets().buckets());
        }
      }
    }
    assigned = Map.copyOf(sets);
    for (List<TableAssignment> assignments : split) {
      Map<String, String> taskProps = new HashMap<>(props);
      taskProps.put(ChangelakeSourceTask.TASK_TABLES, TableAssignment.encode(assignments));
      // Connect numbers tasks in list order; the task needs its number for its JMX metric names
      taskProps.put(ChangelakeSourceTask.TASK_ID, String.valueOf(configs.size()));
      configs.add(taskProps);
    }
    return configs;
  }

  @Override
  public void stop() {
    if (monitor != null) {
      monitor.shutdownNow();
    }
    if (catalog != null) {
      try {
        catalog.close();
      } catch (Exception e) {
        throw new ConnectException("Closing the Paimon catalog failed", e);
      }
    }
  }

  @Override
  public ConfigDef config() {
    return ChangelakeSourceConfig.configDef();
  }

  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    Config result = super.validate(connectorConfigs);
    boolean singleKeysValid =
        result.configValues().stream().allMatch(value -> value.errorMessages().isEmpty());
    if (singleKeysValid) {
      ChangelakeSourceConfig.crossKeyIssues(connectorConfigs)
          .forEach(
              (key, message) ->
                  result.configValues().stream()
                      .filter(value -> value.name().equals(key))
                      .forEach(value -> value.addErrorMessage(message)));
    }
    return result;
  }

  @Override
  public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
    // offsets are Paimon snapshot positions, which replay identically after any restart
    return ExactlyOnceSupport.SUPPORTED;
  }

  @Override
  public ConnectorTransactionBoundaries canDefineTransactionBoundaries(
      Map<String, String> connectorConfig) {
    // with transaction.boundary=connector each Paimon snapshot becomes one Kafka transaction
    return ConnectorTransactionBoundaries.SUPPORTED;
  }

  /**
   * Validates offsets given to Connect's offsets API. A bucket moved to an explicit position or
   * reset also loses the Paimon consumers that covered it: a resumed bucket takes the later of its
   * offset and their floors, and a bucket without offset resumes from them unless it starts with
   * the full state, so a consumer left in place would override the move. The next task registers
   * its consumer again.
   */
  @Override
  public boolean alterOffsets(
      Map<String, String> connectorConfig, Map<Map<String, ?>, Map<String, ?>> offsets) {
    List<SourceOffsets.PartitionBuckets> moved = new ArrayList<>();
    for (Map.Entry<Map<String, ?>, Map<String, ?>> entry : offsets.entrySet()) {
      SourceOffsets.PartitionBuckets partition = SourceOffsets.parsePartition(entry.getKey());
      SourceOffsets.parseOffset(entry.getKey(), entry.getValue()); // validates it
      moved.add(partition);
    }
    if (moved.isEmpty()) {
      return true;
    }
    ChangelakeSourceConfig config = new ChangelakeSourceConfig(connectorConfig);
    String base = config.consumerIdBase(connectorConfig.getOrDefault("name", "changelake-source"));
    try (Catalog offsetsCatalog = LakeCatalogs.open(connectorConfig)) {
      for (SourceOffsets.PartitionBuckets partition : moved) {
        try {
          FileStoreTable table = (FileStoreTable) offsetsCatalog.getTable(partition.table());
          for (RegisteredConsumer consumer : ChangelogReader.consumers(table, base)) {
            boolean covers =
                consumer.buckets().isEmpty()
                    || partition.buckets().isEmpty()
                    || consumer.buckets().stream().anyMatch(partition::covers);
            if (covers) {
              ChangelogReader.dropConsumer(table, consumer.id());
            }
          }
        } catch (Catalog.TableNotExistException e) {
          // nothing to release; the offset applies if the table is created again
        }
      }
    } catch (Exception e) {
      throw new ConnectException(
          "Offsets are valid, but releasing the Paimon consumers of " + moved + " failed", e);
    }
    return true;
  }

  /**
   * Makes sure every table read has a {@code consumer.expiration-time}, so that this connector's
   * consumers, once it is deleted, stop pinning snapshots ({@link ConsumerExpiry}). Failing here
   * loses nothing: the connector tries again on the next change of its tables or its next start.
   */
  private void boundConsumers(Set<Identifier> ids) {
    Duration bound = new ChangelakeSourceConfig(props).consumerExpiration();
    for (Identifier id : ids) {
      try {
        ConsumerExpiry.Bound set = ConsumerExpiry.ensureBounded(catalog, id, bound);
        if (set.setByConnector()) {
          LOG.info(
              "Table {} had no consumer.expiration-time; set it to {} so that consumers of a"
                  + " deleted connector stop pinning its snapshots",
              id,
              set.value());
        } else if (!set.value().equals(bound.toMillis() + " ms")) {
          LOG.debug("Table {} keeps its own consumer.expiration-time {}", id, set.value());
        }
      } catch (Catalog.TableNotExistException e) {
        // dropped since the listing: its consumers went with it
      } catch (RuntimeException e) {
        LOG.warn(
            "Setting consumer.expiration-time on table {} failed; abandoned consumers of it stay"
                + " until it is set (tried again when the tables change or the connector starts)",
            id,
            e);
      }
    }
  }

  /**
   * Removes this connector's consumers of bucket sets that span several of today's tasks once
   * today's readers cover all their buckets (a task removes the old sets within its own buckets
   * itself). Failing here loses nothing: the consumer stays until the next round or until the
   * table's consumer.expiration-time.
   */
  private void removeSpanningConsumers() {
    String base = new ChangelakeSourceConfig(props).consumerIdBase(connectorName());
    assigned.forEach(
        (id, sets) -> {
          try {
            FileStoreTable table = (FileStoreTable) catalog.getTable(id);
            for (RegisteredConsumer stale :
                ConsumerHygiene.spanning(ChangelogReader.consumers(table, base), sets)) {
              LOG.info(
                  "Removing Paimon consumer {} of table {}: its buckets are read under {} now",
                  stale.id(),
                  id,
                  sets);
              ChangelogReader.dropConsumer(table, stale.id());
            }
          } catch (Catalog.TableNotExistException e) {
            // dropped: its consumers went with it
          } catch (RuntimeException e) {
            LOG.warn("Removing old Paimon consumers of table {} failed; trying again later", id, e);
          }
        });
  }

  private String connectorName() {
    return props.getOrDefault("name", "changelake-source");
  }
}
