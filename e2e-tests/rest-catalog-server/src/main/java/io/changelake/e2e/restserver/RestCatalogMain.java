package io.changelake.e2e.restserver;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.apache.paimon.rest.RESTCatalogServer;
import org.apache.paimon.rest.auth.BearTokenAuthProvider;
import org.apache.paimon.rest.responses.ConfigResponse;

/**
 * Paimon's reference REST catalog server on loopback: serves warehouse {@code args[2]} with its
 * tables under {@code args[0]}, accepts only {@code Authorization: Bearer <args[1]>}, and writes
 * its base URL into {@code args[3]} once it listens. Runs until killed.
 */
public final class RestCatalogMain {
  private RestCatalogMain() {}

  public static void main(String[] args) throws Exception {
    Path dataDir = Path.of(args[0]);
    String token = args[1];
    String warehouse = args[2];
    Path urlFile = Path.of(args[3]);
    Map<String, String> defaults = new HashMap<>();
    defaults.put("prefix", "paimon");
    defaults.put("warehouse", warehouse);
    RESTCatalogServer catalog =
        new RESTCatalogServer(
            dataDir.toString(),
            new BearTokenAuthProvider(token),
            new ConfigResponse(defaults, Map.of()),
            warehouse);
    // the reference server keeps its catalog in plain HashMaps while its HTTP server answers each
    // connection on a thread of its own: serve requests one at a time, as a real server would make
    // them safe
    Dispatcher served = catalog.initDispatcher(new BearTokenAuthProvider(token));
    MockWebServer http = new MockWebServer();
    http.setDispatcher(
        new Dispatcher() {
          @Override
          public synchronized MockResponse dispatch(RecordedRequest request)
              throws InterruptedException {
            return served.dispatch(request);
          }
        });
    http.start(InetAddress.getLoopbackAddress(), 0);
    Path partial = urlFile.resolveSibling(urlFile.getFileName() + ".tmp");
    Files.writeString(partial, http.url("").toString(), StandardCharsets.UTF_8);
    Files.move(partial, urlFile, StandardCopyOption.ATOMIC_MOVE);
    Thread.currentThread().join();
  }
}
