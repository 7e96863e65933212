package dev.relay.client.cli;

import dev.relay.client.RelayClient;
import dev.relay.protocol.BackedUp;
import dev.relay.protocol.Backup;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code relay backup [--name NAME]}: a consistent copy of a live server's database. */
@Command(
    name = "backup",
    mixinStandardHelpOptions = true,
    description = {
      "Write a consistent copy of the live database into the server's backup directory",
      "(its --backup-dir); prints the file's name and size."
    })
final class BackupCommand implements Callable<Integer> {
  @ParentCommand RelayCli relay;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      defaultValue = Backup.SERVER_CHOOSES,
      description = {
        "File name in the backup directory: [A-Za-z0-9][A-Za-z0-9._-]*, at most 128 characters.",
        "Default: the server names it relay-<UTC time>.db. An existing name is refused."
      })
  String name;

  @Override
  public Integer call() {
    try (RelayClient client = relay.connect()) {
      BackedUp backedUp = RelayClient.await(client.backup(name));
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("name", backedUp.name());
      json.put("bytes", backedUp.bytes());
      relay.print(
          "backed up "
              + backedUp.bytes()
              + " bytes to "
              + backedUp.name()
              + " in the backup"
              + " directory",
          json);
    }
    return ExitCodes.OK;
  }
}
