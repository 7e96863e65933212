package dev.relay.server.dashboard;

import dev.relay.protocol.DurationText;
import dev.relay.server.AuthToken;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One limit or setting in force, as the server page lists it.
 *
 * @param name the config record's component name ({@code connectionsMax})
 * @param value its value as text
 */
public record Setting(String name, String value) {
  /**
   * Every component of a config record, in declaration order, named with {@code prefix} as the
   * range checks name them ({@code dashboard} + {@code connectionsMax} is {@code
   * dashboardConnectionsMax}), except file system paths and secrets (which a read-only viewer must
   * not learn) and nested records.
   */
  public static List<Setting> of(String prefix, Record config) {
    List<Setting> settings = new ArrayList<>();
    for (RecordComponent c : config.getClass().getRecordComponents()) {
      Object value = read(config, c);
      if (value instanceof Optional<?> o) {
        value = o.orElse(null);
      }
      if (value instanceof Path || value instanceof Record || value instanceof AuthToken) {
        continue;
      }
      String name =
          prefix.isEmpty()
              ? c.getName()
              : prefix + Character.toUpperCase(c.getName().charAt(0)) + c.getName().substring(1);
      settings.add(new Setting(name, text(value)));
    }
    return List.copyOf(settings);
  }

  private static Object read(Record config, RecordComponent c) {
    try {
      return c.getAccessor().invoke(config);
    } catch (IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot read " + c.getName() + " of a public record", e);
    }
  }

  private static String text(Object value) {
    if (value == null) {
      return "none";
    }
    if (value instanceof Duration d) {
      return DurationText.format(d);
    }
    return value.toString();
  }
}
