package dev.relay.server.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * The dashboard's HTML pieces: escaping, the page frame with its navigation, action forms and
 * number formats. Every value that came from a client (queue names, job types, headers, errors,
 * payloads) goes through {@link #e} before it reaches a page.
 */
final class Html {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private Html() {}

  /** Escapes text for HTML element content and quoted attribute values. */
  static String e(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  /** Encodes a query parameter value (then escaped again when placed in an attribute). */
  static String q(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  /** A whole page: head with the jar's stylesheet and script, navigation, notice and body. */
  static String page(String title, Visitor visitor, String notice, String body) {
    StringBuilder b = new StringBuilder(body.length() + 2048);
    b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>")
        .append(e(title))
        .append(" · Relay</title>")
        .append("<link rel=\"stylesheet\" href=\"/static/dashboard.css\">")
        .append("<script src=\"/static/dashboard.js\" defer></script></head><body>")
        .append("<header><nav><strong>Relay</strong> <a href=\"/\">Overview</a>")
        .append(" <a href=\"/dead\">Dead jobs</a> <a href=\"/server\">Server</a>")
        .append("<span class=\"who\">");
    if (visitor.admin()) {
      b.append("admin ").append(form(visitor, "/logout", "Log out", Map.of(), null, "link"));
    } else {
      b.append("<span class=\"badge\" id=\"read-only\">read-only</span> ");
      if (visitor.session().isPresent()) {
        b.append(form(visitor, "/logout", "Log out", Map.of(), null, "link"));
      } else {
        b.append("<a href=\"/login\">Log in</a>");
      }
    }
    b.append("</span></nav></header><main>");
    if (!notice.isEmpty()) {
      b.append("<p class=\"notice\" id=\"notice\">").append(e(notice)).append("</p>");
    }
    b.append("<h1>").append(e(title)).append("</h1>").append(body);
    return b.append("</main></body></html>\n").toString();
  }

  /**
   * A POST form with the session's CSRF token and {@code fields} as hidden inputs and one button;
   * {@code confirm} (or null) is asked by the page script before it is sent.
   */
  static String form(
      Visitor visitor,
      String action,
      String label,
      Map<String, String> fields,
      String confirm,
      String cssClass) {
    StringBuilder b =
        new StringBuilder("<form method=\"post\" class=\"action ")
            .append(e(cssClass))
            .append("\" action=\"")
            .append(e(action))
            .append('"');
    if (confirm != null) {
      b.append(" data-confirm=\"").append(e(confirm)).append('"');
    }
    b.append("><input type=\"hidden\" name=\"csrf\" value=\"")
        .append(e(visitor.csrf()))
        .append("\">");
    fields.forEach(
        (name, value) ->
            b.append("<input type=\"hidden\" name=\"")
                .append(e(name))
                .append("\" value=\"")
                .append(e(value))
                .append("\">"));
    return b.append("<button type=\"submit\">")
        .append(e(label))
        .append("</button></form>")
        .toString();
  }

  /** An action form for admins; for read-only visitors nothing (the server refuses it anyway). */
  static String adminForm(
      Visitor visitor, String action, String label, Map<String, String> fields, String confirm) {
    return visitor.admin() ? form(visitor, action, label, fields, confirm, "") : "";
  }

  static String time(Instant t) {
    return t == null ? "–" : TIME.format(t);
  }

  /** A duration for people: {@code 850 ms}, {@code 12.5 s}, {@code 3h 4m 5s}; {@code –} if < 0. */
  static String age(long millis) {
    if (millis < 0) {
      return "–";
    }
    if (millis < 1000) {
      return millis + " ms";
    }
    if (millis < 60_000) {
      return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
    Duration d = Duration.ofMillis(millis);
    return (d.toHours() > 0 ? d.toHours() + "h " : "")
        + d.toMinutesPart()
        + "m "
        + d.toSecondsPart()
        + "s";
  }

  static String rate(double perUnit) {
    return String.format(Locale.ROOT, "%.1f", perUnit);
  }

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    if (n < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
    }
    return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
  }

  static String queueLink(String queue) {
    return "<a href=\"/queue?name=" + e(q(queue)) + "\">" + e(queue) + "</a>";
  }

  static String jobLink(long id) {
    return "<a href=\"/job?id=" + id + "\">" + id + "</a>";
  }
}
