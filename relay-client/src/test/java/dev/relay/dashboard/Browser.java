package dev.relay.dashboard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium driven through ChromeDriver, both from the OS's packages: the binary and the
 * driver are named explicitly so Selenium Manager never looks for (or downloads) either.
 *
 * <p>Paths default to Debian's ({@code /usr/bin/chromium}, {@code /usr/bin/chromedriver}); {@code
 * -Drelay.chromium=...} and {@code -Drelay.chromedriver=...} point elsewhere (on macOS, for example
 * {@code /Applications/Chromium.app/Contents/MacOS/Chromium} and Homebrew's {@code chromedriver}).
 * When either is missing the tests are skipped with what to install, unless the {@code CI}
 * environment variable is set: there a missing browser is a failure, never a silent skip.
 */
final class Browser {
  static final Duration PAGE_LOAD_TIMEOUT = Duration.ofSeconds(60);

  private Browser() {}

  static Path chromium() {
    return Path.of(System.getProperty("relay.chromium", "/usr/bin/chromium"));
  }

  static Path chromedriver() {
    return Path.of(System.getProperty("relay.chromedriver", "/usr/bin/chromedriver"));
  }

  /** Fails on CI, skips elsewhere, when Chromium or ChromeDriver is not installed. */
  static void assumeInstalled() {
    if (Files.isExecutable(chromium()) && Files.isExecutable(chromedriver())) {
      return;
    }
    String message =
        "the dashboard's browser tests need Chromium at "
            + chromium()
            + " and ChromeDriver at "
            + chromedriver()
            + " (Debian/Ubuntu: apt-get install chromium chromium-driver; elsewhere set"
            + " -Drelay.chromium and -Drelay.chromedriver)";
    if (System.getenv("CI") != null) {
      Assertions.fail(message + "; CI is set, so this is a failure");
    }
    Assumptions.abort(message);
  }

  /** A fresh headless browser with an empty profile in {@code profileDir}. */
  static ChromeDriver start(Path profileDir, Path logFile) throws IOException {
    Files.createDirectories(profileDir);
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium().toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox", // the tests run as root on CI, where Chromium's sandbox refuses to start
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--user-data-dir=" + profileDir.toAbsolutePath());
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(chromedriver().toFile())
            .usingAnyFreePort()
            .withLogFile(logFile.toFile())
            .build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(PAGE_LOAD_TIMEOUT);
    driver.manage().window().setSize(new Dimension(1280, 1000));
    return driver;
  }
}
