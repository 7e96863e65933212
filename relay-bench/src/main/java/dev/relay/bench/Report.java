package dev.relay.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Everything one run measured: named figures with their samples, ratios of medians, the issue's
 * targets checked against them, the load average at each phase, and notes. Printed as a table and
 * written as JSON.
 */
final class Report {
  private final Map<String, Series> figures = new LinkedHashMap<>();
  private final Map<String, Ratio> ratios = new LinkedHashMap<>();
  private final List<Target> targets = new ArrayList<>();
  private final Map<String, Double> loads = new LinkedHashMap<>();
  private final List<String> notes = new ArrayList<>();

  /** A ratio of two figures' medians. */
  record Ratio(String what, String numerator, String denominator) {}

  /** The series named {@code key}, created on first use. */
  Series figure(String key, String unit, String what) {
    return figures.computeIfAbsent(key, k -> new Series(unit, what));
  }

  void ratio(String key, String what, String numerator, String denominator) {
    ratios.put(key, new Ratio(what, numerator, denominator));
  }

  void target(Target target) {
    targets.add(target);
  }

  /** Records the one-minute load average now, under {@code phase}. */
  void load(String phase) {
    loads.put(phase, Machine.loadAverage());
  }

  void note(String note) {
    notes.add(note);
  }

  double median(String key) {
    Series s = figures.get(key);
    if (s != null) {
      return s.median();
    }
    Ratio r = ratios.get(key);
    if (r == null) {
      throw new IllegalArgumentException("no figure or ratio " + key);
    }
    return median(r.numerator()) / median(r.denominator());
  }

  Map<String, Object> toJson(Map<String, Object> machine, Map<String, Object> configuration) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("machine", machine);
    root.put("configuration", configuration);
    root.put("loadAverage1m", loads);
    Map<String, Object> f = new LinkedHashMap<>();
    figures.forEach((k, s) -> f.put(k, s.toJson()));
    root.put("figures", f);
    Map<String, Object> r = new LinkedHashMap<>();
    ratios.forEach(
        (k, ratio) -> {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("what", ratio.what());
          m.put("numerator", ratio.numerator());
          m.put("denominator", ratio.denominator());
          m.put("value", median(k));
          r.put(k, m);
        });
    root.put("ratios", r);
    List<Object> t = new ArrayList<>();
    for (Target target : applicableTargets()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("figure", target.figure());
      m.put("target", target.text());
      m.put("bound", target.boundText());
      double value = median(target.figure());
      m.put("value", value);
      m.put("met", target.metBy(value));
      t.add(m);
    }
    root.put("targets", t);
    root.put("targetsMet", targetsMet());
    root.put("notes", notes);
    return root;
  }

  void print(PrintStream out) {
    out.printf(
        Locale.ROOT, "%n%-44s %12s %12s %12s  %s%n", "figure", "median", "min", "max", "unit");
    figures.forEach(
        (k, s) ->
            out.printf(
                Locale.ROOT,
                "%-44s %12s %12s %12s  %s%n",
                k,
                format(s.median()),
                format(s.min()),
                format(s.max()),
                s.unit()));
    if (!ratios.isEmpty()) {
      out.printf(Locale.ROOT, "%n%-44s %12s  %s%n", "ratio (of medians)", "value", "what");
      ratios.forEach(
          (k, r) -> out.printf(Locale.ROOT, "%-44s %11sx  %s%n", k, format(median(k)), r.what()));
    }
    List<Target> applicable = applicableTargets();
    if (!applicable.isEmpty()) {
      out.printf(Locale.ROOT, "%n%-44s %12s %12s  %s%n", "target", "value", "bound", "");
      for (Target t : applicable) {
        double value = median(t.figure());
        out.printf(
            Locale.ROOT,
            "%-44s %12s %12s  %s (%s)%n",
            t.figure(),
            format(value),
            t.boundText(),
            t.metBy(value) ? "met" : "NOT MET",
            t.text());
      }
      out.printf(Locale.ROOT, "targets met: %d of %d%n", targetsMet(), applicable.size());
    }
    out.printf(Locale.ROOT, "%nload average (1 min): %s%n", loads);
    notes.forEach(n -> out.println("note: " + n));
  }

  /** How many of the targets this run measured it met. */
  long targetsMet() {
    return applicableTargets().stream().filter(t -> t.metBy(median(t.figure()))).count();
  }

  /** Targets whose figures this run measured. */
  private List<Target> applicableTargets() {
    return targets.stream()
        .filter(t -> figures.containsKey(t.figure()) || ratios.containsKey(t.figure()))
        .toList();
  }

  /** Three significant figures at most, no exponent: 11456, 1.75, 0.512. */
  static String format(double value) {
    double abs = Math.abs(value);
    if (abs >= 1000) {
      return String.format(Locale.ROOT, "%.0f", value);
    }
    if (abs >= 100) {
      return String.format(Locale.ROOT, "%.1f", value);
    }
    if (abs >= 1) {
      return String.format(Locale.ROOT, "%.2f", value);
    }
    return String.format(Locale.ROOT, "%.3f", value);
  }
}
