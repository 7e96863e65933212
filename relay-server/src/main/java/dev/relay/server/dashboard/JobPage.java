package dev.relay.server.dashboard;

import static dev.relay.server.dashboard.Html.e;

import dev.relay.protocol.Header;
import dev.relay.protocol.JobState;
import dev.relay.server.store.JobView;
import dev.relay.server.store.PayloadStart;
import dev.relay.server.store.StoreError;
import dev.relay.server.store.StoreException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * One job: every field INSPECT gives, its last error in full (a worker's NACK text, stack trace and
 * all), the start of its payload as text or hex, and the actions its state allows: cancel a ready
 * job, requeue or purge a dead one.
 */
final class JobPage {
  /** Most payload bytes a job page reads and shows. */
  static final int PAYLOAD_PREVIEW_BYTES_MAX = 4096;

  private static final int HEX_BYTES_PER_LINE = 16;

  private JobPage() {}

  static CompletableFuture<String> render(ServerView server, Call call, Executor loop) {
    long id = call.number("id", -1, 1);
    if (id < 0) {
      throw new Call.BadRequest("id is required");
    }
    String as = call.param("as");
    CompletableFuture<Optional<JobView>> job = server.store().inspect(id);
    // A payload that fails its checksum is said so under the job's fields, not a failed page.
    CompletableFuture<String> payload =
        server
            .store()
            .payloadStart(id, PAYLOAD_PREVIEW_BYTES_MAX)
            .handle(
                (p, error) ->
                    error == null
                        ? payload(id, p, as)
                        : damagedPayload(
                            error instanceof CompletionException && error.getCause() != null
                                ? error.getCause()
                                : error));
    return job.thenCombineAsync(
        payload,
        (j, p) ->
            Html.page(
                "Job " + id,
                call.visitor(),
                call.notice(),
                j.isEmpty()
                    ? "<p>No job has this id (never enqueued, or purged).</p>"
                    : actions(call.visitor(), j.get()) + fields(j.get()) + p),
        loop);
  }

  /**
   * A store refusal (a damaged payload) is shown with its message; anything else fails the page.
   */
  private static String damagedPayload(Throwable error) {
    if (error instanceof StoreException refused && refused.code() == StoreError.INVALID_STATE) {
      return "<h2>Payload</h2><p id=\"payload-damaged\">" + e(refused.getMessage()) + "</p>";
    }
    throw error instanceof RuntimeException r ? r : new CompletionException(error);
  }

  private static String actions(Visitor v, JobView j) {
    Map<String, String> job = Map.of("job", Long.toString(j.id()));
    String forms =
        switch (j.state()) {
          case READY -> Html.adminForm(v, "/actions/cancel", "Cancel", job, "Cancel this job?");
          case DEAD ->
              Html.adminForm(v, "/actions/requeue", "Requeue", job, null)
                  + Html.adminForm(
                      v, "/actions/purge", "Purge", job, "Delete this dead job for good?");
          default -> "";
        };
    return forms.isEmpty() ? "" : "<div class=\"actions\">" + forms + "</div>";
  }

  private static String fields(JobView j) {
    StringBuilder b = new StringBuilder("<table class=\"fields\" id=\"job-fields\"><tbody>");
    row(
        b,
        "State",
        "<span id=\"job-state\">" + j.state().name().toLowerCase(Locale.ROOT) + "</span>");
    row(b, "Queue", Html.queueLink(j.queue()));
    row(b, "Type", e(j.type()));
    row(b, "Priority", Integer.toString(j.priority()));
    row(b, "Attempts", j.attempts() + " of " + j.attemptsMax());
    row(b, "Fencing number", Long.toString(j.fencingNumber()));
    row(b, "Expiries", Integer.toString(j.expiries()));
    row(b, "Failures (NACKs)", Integer.toString(j.failures()));
    row(b, "Enqueued", Html.time(j.enqueuedAt()));
    row(b, "Available", Html.time(j.availableAt()));
    row(b, "Lease expires", Html.time(j.leaseExpiresAt()));
    row(b, "Finished", Html.time(j.finishedAt()));
    row(b, "Payload size", Html.bytes(j.payloadBytes()));
    row(b, "Idempotency key", j.idempotencyKey() == null ? "–" : e(j.idempotencyKey()));
    row(b, "Dead reason", j.state() == JobState.DEAD ? e(j.deadReason()) : "–");
    b.append("</tbody></table><h2>Headers</h2>");
    if (j.headers().isEmpty()) {
      b.append("<p>None.</p>");
    } else {
      b.append("<table class=\"headers\"><tbody>");
      for (Header h : j.headers()) {
        row(b, e(h.name()), e(h.value()));
      }
      b.append("</tbody></table>");
    }
    b.append("<h2>Last error</h2>");
    if (j.lastError() == null || j.lastError().isEmpty()) {
      b.append("<p>None.</p>");
    } else {
      b.append("<pre id=\"last-error\">").append(e(j.lastError())).append("</pre>");
    }
    return b.toString();
  }

  private static void row(StringBuilder b, String name, String valueHtml) {
    b.append("<tr><th>").append(name).append("</th><td>").append(valueHtml).append("</td></tr>");
  }

  private static String payload(long id, Optional<PayloadStart> p, String as) {
    if (p.isEmpty()) {
      return "";
    }
    byte[] start = p.get().start();
    Optional<String> text = text(start);
    boolean hex = as.equals("hex") || text.isEmpty();
    StringBuilder b = new StringBuilder("<h2>Payload</h2><p>");
    b.append(
        p.get().payloadBytes() > start.length
            ? "First " + start.length + " of " + p.get().payloadBytes() + " bytes"
            : p.get().payloadBytes() + " bytes");
    if (text.isPresent()) {
      b.append(" · <a href=\"/job?id=")
          .append(id)
          .append(hex ? "&amp;as=text\">as text" : "&amp;as=hex\">as hex")
          .append("</a>");
    }
    b.append("</p><pre id=\"payload\">").append(e(hex ? hex(start) : text.get())).append("</pre>");
    return b.toString();
  }

  /**
   * The bytes as text when they are UTF-8 without control characters other than tab and line
   * breaks. A preview cut inside a multi-byte character drops that character's start.
   */
  static Optional<String> text(byte[] bytes) {
    for (int cut = 0; cut < 4 && cut <= bytes.length; cut++) {
      try {
        String s =
            StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes, 0, bytes.length - cut))
                .toString();
        boolean printable =
            s.chars().allMatch(c -> c >= 0x20 && c != 0x7f || c == '\n' || c == '\r' || c == '\t');
        return printable ? Optional.of(s) : Optional.empty();
      } catch (CharacterCodingException e) {
        // try without the last byte: the preview may end inside a character
      }
    }
    return Optional.empty();
  }

  static String hex(byte[] bytes) {
    StringBuilder b = new StringBuilder(bytes.length * 4);
    for (int i = 0; i < bytes.length; i += HEX_BYTES_PER_LINE) {
      b.append(String.format(Locale.ROOT, "%08x ", i));
      for (int k = i; k < Math.min(bytes.length, i + HEX_BYTES_PER_LINE); k++) {
        b.append(String.format(Locale.ROOT, " %02x", bytes[k] & 0xff));
      }
      b.append('\n');
    }
    return b.toString();
  }
}
