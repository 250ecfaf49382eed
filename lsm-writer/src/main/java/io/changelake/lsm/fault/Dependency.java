package io.changelake.lsm.fault;

/** The outside services a connector waits on when they fail for a while. */
public enum Dependency {
  OBJECT_STORE("object-store", "the object store (warehouse files)"),
  CATALOG("catalog", "the catalog or lock database"),
  BROKER("broker", "the Kafka broker");

  private final String tag;
  private final String description;

  Dependency(String tag, String description) {
    this.tag = tag;
    this.description = description;
  }

  /** The value of the {@code dependency} metric tag. */
  public String tag() {
    return tag;
  }

  /** For log lines and error messages. */
  public String description() {
    return description;
  }
}
