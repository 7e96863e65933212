package dev.relay.client.cli;

import java.util.List;

/** Plain-text tables with left-aligned columns, and human-readable ages. */
final class Table {
  private static final String GAP = "  ";

  private Table() {}

  /** Renders rows (the first is the header) with every column as wide as its widest cell. */
  static String render(List<List<String>> rows) {
    int columns = rows.get(0).size();
    int[] widths = new int[columns];
    for (List<String> row : rows) {
      for (int i = 0; i < columns; i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        line.append(row.get(i));
        if (i < columns - 1) {
          line.append(" ".repeat(widths[i] - row.get(i).length())).append(GAP);
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  /** {@code 850ms}, {@code 42s}, {@code 3m 05s}, {@code 2h 07m}, {@code 3d 04h}. */
  static String age(long millis) {
    if (millis < 1000) {
      return millis + "ms";
    }
    long s = millis / 1000;
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format("%dm %02ds", s / 60, s % 60);
    }
    if (s < 86_400) {
      return String.format("%dh %02dm", s / 3600, (s % 3600) / 60);
    }
    return String.format("%dd %02dh", s / 86_400, (s % 86_400) / 3600);
  }
}
