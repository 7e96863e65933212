package dev.relay.client.cli;

import dev.relay.client.RelayClient;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code relay backup PATH}: a consistent copy of a live server's database. */
@Command(
    name = "backup",
    mixinStandardHelpOptions = true,
    description = "Write a consistent copy of the live database to PATH on the server's machine.")
final class BackupCommand implements Callable<Integer> {
  @ParentCommand RelayCli relay;

  @Parameters(paramLabel = "PATH", description = "Destination path, on the server's machine.")
  String path;

  @Override
  public Integer call() {
    try (RelayClient client = relay.connect()) {
      long bytes = RelayClient.await(client.backup(path));
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("path", path);
      json.put("bytes", bytes);
      relay.print("backed up " + bytes + " bytes to " + path, json);
    }
    return ExitCodes.OK;
  }
}
