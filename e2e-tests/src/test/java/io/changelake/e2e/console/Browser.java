package io.changelake.e2e.console;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.function.Function;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Headless Chromium from Debian ({@code chromium}, {@code chromium-driver}; {@code .ci/run}
 * installs them), driven through its driver at a fixed path so that Selenium Manager never looks
 * for or downloads a browser or driver.
 */
final class Browser implements AutoCloseable {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  /** Pages poll every 2 s; this is how long the slowest pipeline step may take to show. */
  private static final Duration PAGE_WAIT = Duration.ofSeconds(120);

  private final ChromeDriver driver;

  private Browser(ChromeDriver driver) {
    this.driver = driver;
  }

  static Browser start(Path profile) {
    for (Path binary : new Path[] {CHROMIUM, CHROMEDRIVER}) {
      if (!Files.isExecutable(binary)) {
        throw new IllegalStateException(
            binary + " is missing: apt-get install -y chromium chromium-driver (as .ci/run does)");
      }
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1500,1100",
        "--user-data-dir=" + profile.toAbsolutePath());
    // the https console of the tests serves a self-signed certificate the test just made
    options.setAcceptInsecureCerts(true);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(CHROMEDRIVER.toString()))
            .usingAnyFreePort()
            .build();
    return new Browser(new ChromeDriver(service, options));
  }

  /**
   * Sends basic-auth credentials with every request from now on (empty: none), through the DevTools
   * protocol of the driver: credentials in the URL would not reach the pages' own requests.
   */
  void login(String user, String password) {
    driver.executeCdpCommand("Network.enable", Map.of());
    Map<String, Object> headers =
        user.isEmpty()
            ? Map.of()
            : Map.of(
                "Authorization",
                "Basic "
                    + Base64.getEncoder()
                        .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
    driver.executeCdpCommand("Network.setExtraHTTPHeaders", Map.of("headers", headers));
  }

  WebDriver driver() {
    return driver;
  }

  void open(String url) {
    driver.get(url);
  }

  /** Waits until the page (re-rendered on every poll) shows what {@code condition} looks for. */
  <T> T await(String what, Function<WebDriver, T> condition) {
    return new WebDriverWait(driver, PAGE_WAIT)
        .ignoring(StaleElementReferenceException.class)
        .withMessage(
            () ->
                what
                    + "; the page shows:\n"
                    + driver.findElement(org.openqa.selenium.By.tagName("body")).getText())
        .until(condition);
  }

  /**
   * Saves the page to {@code docs/console/<name>.png} when run with -Dchangelake.docs.write=true.
   */
  void screenshot(String name) {
    if (!Boolean.getBoolean("changelake.docs.write")) {
      return;
    }
    Path target = Path.of("").toAbsolutePath().getParent().resolve("docs/console/" + name + ".png");
    try {
      Files.createDirectories(target.getParent());
      Files.write(target, driver.getScreenshotAs(OutputType.BYTES));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    driver.quit();
  }
}
