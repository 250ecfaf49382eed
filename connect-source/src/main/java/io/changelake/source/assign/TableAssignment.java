package io.changelake.source.assign;

import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.catalog.Identifier;

/** One table, or some of its buckets, read by one task. */
public record TableAssignment(Identifier table, BucketSet buckets) {

  /** Task config value: {@code db.table@all;db.other@0,2}. */
  public static String encode(List<TableAssignment> assignments) {
    StringBuilder text = new StringBuilder();
    for (TableAssignment assignment : assignments) {
      if (!text.isEmpty()) {
        text.append(';');
      }
      text.append(assignment.table().getDatabaseName())
          .append('.')
          .append(assignment.table().getObjectName())
          .append('@')
          .append(assignment.buckets().encode());
    }
    return text.toString();
  }

  public static List<TableAssignment> decode(String text) {
    List<TableAssignment> result = new ArrayList<>();
    if (text == null || text.isEmpty()) {
      return result;
    }
    for (String entry : text.split(";")) {
      int at = entry.lastIndexOf('@');
      String name = entry.substring(0, at);
      int dot = name.indexOf('.');
      result.add(
          new TableAssignment(
              Identifier.create(name.substring(0, dot), name.substring(dot + 1)),
              BucketSet.decode(entry.substring(at + 1))));
    }
    return result;
  }
}
