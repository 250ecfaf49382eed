package io.changelake.sink.task;

/**
 * A record the sink cannot write, through no fault of the table or the lake: a candidate for the
 * dead-letter queue. The message says what is wrong and what to change; the task adds where the
 * record came from and which table it was for.
 */
public final class RecordException extends RuntimeException {
  private final String field;

  public RecordException(String message, String field, Throwable cause) {
    super(message, cause);
    this.field = field;
  }

  public RecordException(String message) {
    this(message, null, null);
  }

  /** The field involved, or null. */
  public String field() {
    return field;
  }
}
