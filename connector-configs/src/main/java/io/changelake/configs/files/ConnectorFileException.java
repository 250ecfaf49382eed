package io.changelake.configs.files;

/** A connector file cannot be read or is not in the Connect REST format. */
public final class ConnectorFileException extends RuntimeException {
  public ConnectorFileException(String message) {
    super(message);
  }

  public ConnectorFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
