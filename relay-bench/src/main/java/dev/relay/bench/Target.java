package dev.relay.bench;

/**
 * One target from the issue, checked against the median of a figure or a ratio of medians.
 *
 * @param figure the key of the series or ratio it applies to
 * @param atLeast true when the figure must reach {@code bound}, false when it must stay at or under
 * @param bound the target value
 * @param text the target in words, as the issue states it
 */
record Target(String figure, boolean atLeast, double bound, String text) {
  boolean metBy(double value) {
    return atLeast ? value >= bound : value <= bound;
  }

  String boundText() {
    return (atLeast ? ">= " : "<= ") + Report.format(bound);
  }
}
