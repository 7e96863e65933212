package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * docs/protocol.md's error lists, docs/protocol-errors.json and {@link ErrorCode} say the same
 * thing, both ways: the Error codes table matches the enum (numbers, retryable, closes), each
 * request section's "Errors:" line matches that request's row of the JSON, the sets every request
 * may get match, and every "closes" in the JSON is the code's own.
 */
class ProtocolErrorsTableTest {
  static final Path PROTOCOL_ERRORS_JSON = Path.of("../docs/protocol-errors.json");

  private static final Pattern CODE_ROW =
      Pattern.compile("^\\| (\\d+) \\| `([A-Z_]+)` \\| (yes|no) \\| (yes|no|—) \\|");
  private static final Pattern REQUEST_HEADING =
      Pattern.compile("^### ([A-Z_]+) \\(0x[0-9A-F]+\\)");
  private static final Pattern CODE = Pattern.compile("`([A-Z_]+)`");
  private static final String ANY_FRAME = "- Any frame:";
  private static final String AFTER_WELCOME = "- Any request after WELCOME except HELLO:";
  private static final String ADMIN = "- Admin requests (";

  private static final List<String> LINES = read(ProtocolLimitsTableTest.PROTOCOL_MD);
  private static final JsonNode JSON = json();

  @Test
  void the_error_codes_table_lists_every_error_code_with_its_number_retryable_and_closes() {
    Map<String, String> table = new LinkedHashMap<>();
    for (String line : section("## Errors")) {
      Matcher m = CODE_ROW.matcher(line);
      if (m.find()) {
        String previous = table.put(m.group(2), m.group(1) + " " + m.group(3) + " " + m.group(4));
        assertThat(previous).as("row %s appears twice", m.group(2)).isNull();
      }
    }
    Map<String, String> code = new LinkedHashMap<>();
    for (ErrorCode c : ErrorCode.values()) {
      String closes = c.clientSide() ? "—" : yesNo(c.closesConnection());
      code.put(c.name(), c.code() + " " + yesNo(c.retryable()) + " " + closes);
    }
    assertThat(table).containsExactlyInAnyOrderEntriesOf(code);
  }

  @Test
  void each_request_section_lists_the_errors_of_its_row_in_the_json() {
    Map<String, Set<String>> doc = requestErrorLines();
    Set<String> admin = names(JSON.get("adminRequests").get("opcodes"));
    Map<String, Set<String>> json = new LinkedHashMap<>();
    JSON.get("requests")
        .properties()
        .forEach(
            e -> {
              Set<String> codes = names(e.getValue().get("errors"));
              if (admin.contains(e.getKey())) {
                codes.addAll(names(JSON.get("adminRequests").get("errors")));
              }
              json.put(e.getKey(), codes);
            });
    assertThat(doc).containsExactlyInAnyOrderEntriesOf(json);
  }

  @Test
  void the_json_has_one_row_per_request_opcode_with_its_number() {
    Map<String, Integer> json = new LinkedHashMap<>();
    JSON.get("requests")
        .properties()
        .forEach(e -> json.put(e.getKey(), e.getValue().get("opcode").asInt()));
    Map<String, Integer> code =
        Arrays.stream(Opcode.values())
            .filter(Opcode::isRequest)
            .collect(Collectors.toMap(Opcode::name, Opcode::code));
    assertThat(json).containsExactlyInAnyOrderEntriesOf(code);
    assertThat(JSON.get("protocolVersion").asInt()).isEqualTo(ProtocolLimits.PROTOCOL_VERSION);
  }

  @Test
  void the_sets_every_request_may_get_are_the_same_in_the_spec_and_the_json() {
    assertThat(codesOnLine(ANY_FRAME)).isEqualTo(names(JSON.get("anyFrame")));
    assertThat(codesOnLine(AFTER_WELCOME)).isEqualTo(names(JSON.get("anyRequestAfterWelcome")));
    assertThat(codesOnLine(ADMIN)).isEqualTo(names(JSON.get("adminRequests").get("errors")));
    String adminLine = line(ADMIN);
    Set<String> adminInSpec =
        Arrays.stream(adminLine.substring(ADMIN.length(), adminLine.indexOf(')')).split(", "))
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(adminInSpec).isEqualTo(names(JSON.get("adminRequests").get("opcodes")));
  }

  @Test
  void the_admin_requests_are_exactly_those_a_worker_may_not_send() {
    Set<String> workerMayNot =
        Arrays.stream(Opcode.values())
            .filter(Opcode::isRequest)
            .filter(o -> !Principal.WORKER.may(o))
            .map(Opcode::name)
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(names(JSON.get("adminRequests").get("opcodes"))).isEqualTo(workerMayNot);
  }

  @Test
  void every_closes_in_the_json_is_the_codes_own_and_every_server_code_appears() {
    Set<ErrorCode> seen = EnumSet.noneOf(ErrorCode.class);
    for (JsonNode group :
        List.of(
            JSON.get("anyFrame"),
            JSON.get("anyRequestAfterWelcome"),
            JSON.get("adminRequests").get("errors"))) {
      checkCloses(group, seen);
    }
    JSON.get("requests").forEach(r -> checkCloses(r.get("errors"), seen));
    Set<ErrorCode> serverSent = EnumSet.allOf(ErrorCode.class);
    serverSent.removeIf(ErrorCode::clientSide);
    assertThat(seen).isEqualTo(serverSent);
  }

  private static void checkCloses(JsonNode group, Set<ErrorCode> seen) {
    group
        .properties()
        .forEach(
            e -> {
              ErrorCode code = ErrorCode.valueOf(e.getKey());
              assertThat(code.clientSide()).as(e.getKey()).isFalse();
              assertThat(e.getValue().get("closes").asBoolean())
                  .as("closes of %s", e.getKey())
                  .isEqualTo(code.closesConnection());
              seen.add(code);
            });
  }

  /** For each request section under "## Requests", the codes on its "Errors:" line. */
  static Map<String, Set<String>> requestErrorLines() {
    Map<String, Set<String>> rows = new LinkedHashMap<>();
    String request = null;
    StringBuilder errors = null;
    for (String line : section("## Requests")) {
      Matcher heading = REQUEST_HEADING.matcher(line);
      if (heading.find()) {
        request = heading.group(1);
        errors = null;
        continue;
      }
      int at = line.indexOf("Errors:");
      if (request != null && errors == null && at >= 0) {
        errors = new StringBuilder(line.substring(at));
      } else if (errors != null && !line.isBlank()) {
        errors.append(' ').append(line);
      }
      if (errors != null && (line.isBlank() || line.endsWith("."))) {
        assertThat(rows.put(request, codes(errors.toString())))
            .as("%s has two Errors: lines", request)
            .isNull();
        errors = null;
        request = null;
      }
    }
    return rows;
  }

  private static Set<String> codesOnLine(String prefix) {
    return codes(line(prefix));
  }

  private static String line(String prefix) {
    List<String> found = section("## Errors").stream().filter(l -> l.startsWith(prefix)).toList();
    assertThat(found).as("lines starting %s", prefix).hasSize(1);
    return found.get(0);
  }

  private static Set<String> codes(String text) {
    Set<String> codes = new TreeSet<>();
    Matcher m = CODE.matcher(text);
    while (m.find()) {
      codes.add(m.group(1));
    }
    return codes;
  }

  private static List<String> section(String heading) {
    int start = LINES.indexOf(heading);
    assertThat(start).as("heading %s", heading).isNotNegative();
    int end = start + 1;
    while (end < LINES.size() && !LINES.get(end).startsWith("## ")) {
      end++;
    }
    return LINES.subList(start + 1, end);
  }

  private static Set<String> names(JsonNode node) {
    Set<String> names = new TreeSet<>();
    if (node.isArray()) {
      node.forEach(n -> names.add(n.asText()));
    } else {
      node.fieldNames().forEachRemaining(names::add);
    }
    return names;
  }

  private static String yesNo(boolean value) {
    return value ? "yes" : "no";
  }

  private static List<String> read(Path path) {
    try {
      return Files.readAllLines(path);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static JsonNode json() {
    try {
      return new ObjectMapper().readTree(PROTOCOL_ERRORS_JSON.toFile());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
