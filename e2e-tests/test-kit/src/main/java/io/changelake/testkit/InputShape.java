package io.changelake.testkit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The shapes in which one Debezium change reaches a sink: Debezium's envelope, or the row that
 * Debezium's {@code ExtractNewRecordState} (3.6) makes of it under a given configuration. Tests run
 * over these with {@code @EnumSource(InputShape.class)} so that every documented input mode is
 * exercised, not only the envelope.
 */
public enum InputShape {
  /**
   * The envelope ({@code before}, {@code after}, {@code source}, {@code op}) as Debezium writes it.
   */
  ENVELOPE(false, false, false),

  /**
   * {@code ExtractNewRecordState} at its defaults ({@code
   * delete.tombstone.handling.mode=tombstone}): creates, reads and updates become the {@code after}
   * row without metadata; a delete becomes a tombstone (null value, the row schema kept);
   * Debezium's own tombstones are dropped.
   */
  FLATTENED(true, false, false),

  /**
   * {@code ExtractNewRecordState} with {@code add.fields=op,table,lsn,source.ts_ms}: rows carry
   * {@code __op}, {@code __table}, {@code __lsn}, {@code __source_ts_ms}; deletes are still
   * tombstones, without any of them.
   */
  FLATTENED_ADD_FIELDS(true, true, false),

  /**
   * As {@link #FLATTENED_ADD_FIELDS} plus {@code delete.tombstone.handling.mode=rewrite}: a delete
   * becomes its {@code before} row with {@code __deleted=true} (every other row has {@code
   * __deleted=false}), so deletes keep their source position.
   */
  FLATTENED_REWRITE(true, true, true);

  /** What {@code add.fields} is set to in the flattened shapes that add metadata. */
  public static final String ADD_FIELDS = "op,table,lsn,source.ts_ms";

  private final boolean flattened;
  private final boolean addsFields;
  private final boolean rewritesDeletes;

  InputShape(boolean flattened, boolean addsFields, boolean rewritesDeletes) {
    this.flattened = flattened;
    this.addsFields = addsFields;
    this.rewritesDeletes = rewritesDeletes;
  }

  /** True for the shapes made by {@code ExtractNewRecordState}. */
  public boolean isFlattened() {
    return flattened;
  }

  /** True when rows carry {@code __op}, {@code __table}, {@code __lsn}, {@code __source_ts_ms}. */
  public boolean addsFields() {
    return addsFields;
  }

  /** True when deletes arrive as {@code __deleted=true} rows rather than tombstones. */
  public boolean rewritesDeletes() {
    return rewritesDeletes;
  }

  /**
   * True when a delete still tells where it happened in the source (its LSN): always for the
   * envelope, only with rewritten deletes for flattened rows (a tombstone carries nothing).
   */
  public boolean deletesCarrySourcePosition() {
    return !flattened || rewritesDeletes;
  }

  /**
   * The {@code ExtractNewRecordState} settings of this shape (without the {@code
   * transforms.<name>.} prefix); empty for the envelope, which is not transformed.
   */
  public Map<String, String> transformSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    if (addsFields) {
      settings.put("add.fields", ADD_FIELDS);
    }
    if (rewritesDeletes) {
      settings.put("delete.tombstone.handling.mode", "rewrite");
    }
    return settings;
  }

  /**
   * Connector settings that make a Connect connector (Debezium's, or a sink) apply this shape's
   * transform under the name {@code unwrap}; truncate events pass unflattened (the transform would
   * drop them) when {@code truncatePredicate} names a predicate class, e.g. the sink's {@code
   * IsTruncate}.
   */
  public Map<String, String> connectorSettings(String truncatePredicate) {
    Map<String, String> settings = new LinkedHashMap<>();
    if (!flattened) {
      return settings;
    }
    settings.put("transforms", "unwrap");
    settings.put("transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState");
    transformSettings().forEach((k, v) -> settings.put("transforms.unwrap." + k, v));
    if (truncatePredicate != null) {
      settings.put("predicates", "isTruncate");
      settings.put("predicates.isTruncate.type", truncatePredicate);
      settings.put("transforms.unwrap.predicate", "isTruncate");
      settings.put("transforms.unwrap.negate", "true");
    }
    return settings;
  }
}
