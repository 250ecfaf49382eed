package io.changelake.configs.platform;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Local TCP ports. */
public final class Ports {
  private Ports() {}

  /** A port free on 127.0.0.1 right now. */
  public static int free() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new PlatformException("Cannot find a free local port: " + e.getMessage(), e);
    }
  }

  /** Fails with a clear message when {@code port} is taken. */
  static void requireFree(int port, String what, String option) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
    } catch (IOException e) {
      throw new PlatformException(
          "Port "
              + port
              + " for the "
              + what
              + " is in use on 127.0.0.1. Stop what uses it, or choose another with "
              + option
              + ".");
    }
  }
}
