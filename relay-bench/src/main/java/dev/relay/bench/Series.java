package dev.relay.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The samples of one figure over the repetitions of a run, with its min, median and max. */
final class Series {
  private final String unit;
  private final String what;
  private final List<Double> samples = new ArrayList<>();

  Series(String unit, String what) {
    this.unit = unit;
    this.what = what;
  }

  void add(double value) {
    samples.add(value);
  }

  String unit() {
    return unit;
  }

  double min() {
    return sorted().get(0);
  }

  double max() {
    List<Double> s = sorted();
    return s.get(s.size() - 1);
  }

  /** The middle sample; the mean of the two middle ones for an even count. */
  double median() {
    List<Double> s = sorted();
    int mid = s.size() / 2;
    return s.size() % 2 == 1 ? s.get(mid) : (s.get(mid - 1) + s.get(mid)) / 2;
  }

  private List<Double> sorted() {
    if (samples.isEmpty()) {
      throw new IllegalStateException("no samples of " + what);
    }
    return samples.stream().sorted().toList();
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("what", what);
    m.put("unit", unit);
    m.put("median", median());
    m.put("min", min());
    m.put("max", max());
    m.put("samples", List.copyOf(samples));
    return m;
  }
}
