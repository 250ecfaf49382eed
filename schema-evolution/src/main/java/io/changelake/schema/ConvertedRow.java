package io.changelake.schema;

import java.util.BitSet;
import org.apache.paimon.data.GenericRow;

/**
 * One converted record.
 *
 * <p>Both bit sets are shared ({@code absent} by every row of one converter, an empty {@code
 * unavailable} by all rows): read them, and clone one before changing it (allocating them per row
 * showed in profiles).
 *
 * @param row the row in the target table's column order; columns without a value hold null
 * @param absent target columns the record has no field for (same for every record of one compiled
 *     converter)
 * @param unavailable target columns whose value the source did not have (Debezium's unavailable
 *     value placeholder, e.g. an unchanged TOASTed column); null in {@link #row}
 */
public record ConvertedRow(GenericRow row, BitSet absent, BitSet unavailable) {

  /**
   * Columns whose stored value must be kept rather than overwritten: absent or unavailable. For
   * partial-update tables these are the columns to leave out of the update.
   */
  public BitSet keepStored() {
    BitSet keep = (BitSet) absent.clone();
    keep.or(unavailable);
    return keep;
  }

  /** True when every column of the row carries a value from the record. */
  public boolean isComplete() {
    return absent.isEmpty() && unavailable.isEmpty();
  }
}
