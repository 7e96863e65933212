package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/protocol.md's Limits table and {@link ProtocolLimits} say the same thing: every row names a
 * constant with that value, and every constant has a row, so the spec cannot drift from the code.
 */
class ProtocolLimitsTableTest {
  static final Path PROTOCOL_MD = Path.of("../docs/protocol.md");

  private static final Pattern ROW = Pattern.compile("^\\| `([A-Z0-9_]+)` \\| ([0-9,]+) \\|");

  @Test
  void every_row_of_the_limits_table_is_a_constant_with_that_value() throws Exception {
    Map<String, Long> table = limitsTable();
    Map<String, Long> code = constants();
    assertThat(table).isNotEmpty();
    assertThat(table).containsExactlyInAnyOrderEntriesOf(code);
  }

  @Test
  void every_public_constant_is_a_number_the_table_can_hold() throws Exception {
    for (Field f : ProtocolLimits.class.getDeclaredFields()) {
      if (Modifier.isPublic(f.getModifiers()) && Modifier.isStatic(f.getModifiers())) {
        assertThat(f.getType()).as(f.getName()).isIn(int.class, long.class);
      }
    }
  }

  /** The rows of the table under "## Limits", as name to value. */
  static Map<String, Long> limitsTable() throws IOException {
    return table(Files.readAllLines(PROTOCOL_MD), "## Limits");
  }

  static Map<String, Long> table(List<String> lines, String heading) {
    Map<String, Long> rows = new LinkedHashMap<>();
    boolean inSection = false;
    for (String line : lines) {
      if (line.startsWith("## ")) {
        inSection = line.equals(heading);
        continue;
      }
      Matcher m = ROW.matcher(line);
      if (inSection && m.find()) {
        Long previous = rows.put(m.group(1), Long.parseLong(m.group(2).replace(",", "")));
        assertThat(previous).as("row %s appears twice", m.group(1)).isNull();
      }
    }
    return rows;
  }

  static Map<String, Long> constants() throws IllegalAccessException {
    Map<String, Long> values = new LinkedHashMap<>();
    for (Field f : ProtocolLimits.class.getDeclaredFields()) {
      int mod = f.getModifiers();
      if (Modifier.isPublic(mod) && Modifier.isStatic(mod) && Modifier.isFinal(mod)) {
        values.put(f.getName(), ((Number) f.get(null)).longValue());
      }
    }
    return values;
  }
}
