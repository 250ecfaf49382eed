package io.changelake.configs.quickstart;

/** The quickstart could not finish; the message says where it stopped and what was seen. */
public final class QuickstartException extends RuntimeException {
  public QuickstartException(String message) {
    super(message);
  }
}
