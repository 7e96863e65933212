package dev.relay.server.dashboard;

import dev.relay.server.DelayedAnswer;
import dev.relay.server.LogText;
import dev.relay.server.dashboard.Sessions.Session;
import dev.relay.server.store.StoreError;
import dev.relay.server.store.StoreException;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers one dashboard request: static files, the login, the pages (GET) and the actions (POST).
 *
 * <p>The decision, in order: a request the codec could not parse is 400 and closes; {@code
 * /static/*} and {@code /login} are open; a page needs a session or a server that admits anonymous
 * viewers (else a redirect to the login); a POST other than the login needs a session and its CSRF
 * token, and an action needs an admin session (else 403, and nothing reaches the store). Pages and
 * actions call the store asynchronously and render on this connection's event loop; nothing here
 * blocks.
 */
@Sharable
final class DashboardHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(DashboardHandler.class);

  /**
   * Who changed what through the dashboard: every action an admin session ran, with its fields
   * (escaped; never the CSRF token), and every login, refused or not. A logger of its own, so an
   * operator can route it to an audit file.
   */
  static final Logger audit = LoggerFactory.getLogger("dev.relay.server.dashboard.audit");

  static final String COOKIE = "relay_session";

  /** Forbids every source but the dashboard itself, framing, and forms posting elsewhere. */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

  private final ServerView server;
  private final Sessions sessions;
  private final Sampler sampler;
  private final boolean tls;
  private final long sessionMaxAgeSeconds;
  private final StaticFiles files = new StaticFiles();

  DashboardHandler(
      ServerView server,
      Sessions sessions,
      Sampler sampler,
      boolean tls,
      long sessionMaxAgeSeconds) {
    this.server = server;
    this.sessions = sessions;
    this.sampler = sampler;
    this.tls = tls;
    this.sessionMaxAgeSeconds = sessionMaxAgeSeconds;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (request.decoderResult().isFailure()) {
      respond(ctx, Responses.text(HttpResponseStatus.BAD_REQUEST, "bad request"), false);
      return;
    }
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    CompletableFuture<FullHttpResponse> answer;
    try {
      answer = answer(ctx, request);
    } catch (Call.BadRequest e) {
      answer =
          CompletableFuture.completedFuture(
              Responses.problem(HttpResponseStatus.BAD_REQUEST, e.getMessage()));
    }
    answer.whenCompleteAsync(
        (response, failure) ->
            respond(ctx, response != null ? response : failed(failure), keepAlive),
        ctx.executor());
  }

  private CompletableFuture<FullHttpResponse> answer(
      ChannelHandlerContext ctx, FullHttpRequest request) {
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    String path = uri.path();
    Optional<Session> session = sessions.find(cookie(request));
    Access access =
        session.map(Session::access).orElseGet(() -> server.access().apply(Optional.empty()));
    Visitor visitor = new Visitor(access, session);
    if (HttpMethod.GET.equals(request.method())) {
      if (path.startsWith("/static/")) {
        return done(files.get(path));
      }
      Call call = new Call(path, uri.parameters(), visitor, notice(uri.parameters()));
      if (path.equals("/login")) {
        return done(Responses.html(HttpResponseStatus.OK, LoginPage.render(visitor, "")));
      }
      if (access == Access.NONE) {
        return done(Responses.redirect("/login"));
      }
      return page(ctx.executor(), call)
          .thenApply(html -> Responses.html(HttpResponseStatus.OK, html));
    }
    if (!HttpMethod.POST.equals(request.method())) {
      FullHttpResponse r = Responses.text(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET or POST");
      r.headers().set(HttpHeaderNames.ALLOW, "GET, POST");
      return done(r);
    }
    Map<String, List<String>> form =
        new QueryStringDecoder(request.content().toString(StandardCharsets.UTF_8), false)
            .parameters();
    Call call = new Call(path, form, visitor, "");
    if (path.equals("/login")) {
      return login(visitor, call.param("token"), ctx);
    }
    if (session.isEmpty() || !session.get().csrfMatches(call.param("csrf"))) {
      return done(
          Responses.problem(
              HttpResponseStatus.FORBIDDEN,
              "this action needs a logged-in session and its CSRF token"));
    }
    if (path.equals("/logout")) {
      sessions.remove(session.get().id());
      FullHttpResponse r = Responses.redirect("/login");
      r.headers().set(HttpHeaderNames.SET_COOKIE, cookieHeader("", 0));
      return done(r);
    }
    if (!visitor.admin()) {
      return done(
          Responses.problem(
              HttpResponseStatus.FORBIDDEN,
              "actions need a session logged in with the admin token"));
    }
    Object from = ctx.channel().remoteAddress();
    String fields = LogText.escape(auditedFields(form));
    return Actions.run(server.store(), path, call)
        .whenComplete(
            (result, failure) -> {
              if (failure == null) {
                audit.info(
                    "dashboard action {} {} from {}: {} {}",
                    path,
                    fields,
                    from,
                    result.notice(),
                    result.count());
              } else {
                audit.warn(
                    "dashboard action {} {} from {} failed: {}",
                    path,
                    fields,
                    from,
                    LogText.escape(String.valueOf(failure.getMessage())));
              }
            })
        .thenApply(
            result ->
                Responses.redirect(
                    result.location()
                        + (result.location().contains("?") ? "&" : "?")
                        + "notice="
                        + result.notice()
                        + "&n="
                        + result.count()));
  }

  private CompletableFuture<String> page(Executor loop, Call call) {
    return switch (call.path()) {
      case "/" -> OverviewPage.render(server, sampler, call.visitor(), call.notice(), loop);
      case "/queue" -> QueuePage.render(server, call, loop);
      case "/job" -> JobPage.render(server, call, loop);
      case "/dead" -> DeadJobsPage.render(server, call, loop);
      case "/server" -> ServerPage.render(server, sampler, call, loop);
      default -> CompletableFuture.failedFuture(new NotFound());
    };
  }

  /**
   * Logs in with {@code token}: a session when it earns more than anonymous access. A refusal is
   * answered only after {@link ServerView#authFailureDelay}, on the listener's timer, as a refused
   * HELLO is: guessing a token costs a connection slot for that long per guess.
   */
  private CompletableFuture<FullHttpResponse> login(
      Visitor visitor, String token, ChannelHandlerContext ctx) {
    Access anonymous = server.access().apply(Optional.empty());
    Access earned = token.isEmpty() ? Access.NONE : server.access().apply(Optional.of(token));
    if (earned.compareTo(anonymous) <= 0) {
      audit.warn("dashboard login refused from {}", ctx.channel().remoteAddress());
      FullHttpResponse refused =
          Responses.html(
              HttpResponseStatus.UNAUTHORIZED,
              LoginPage.render(visitor, "That token is not accepted here."));
      CompletableFuture<FullHttpResponse> later = new CompletableFuture<>();
      DelayedAnswer.schedule(
          ctx, server.authFailureDelay(), () -> later.complete(refused), refused::release);
      return later;
    }
    Optional<Session> session = sessions.create(earned);
    audit.info(
        "dashboard login as {} from {}{}",
        earned,
        ctx.channel().remoteAddress(),
        session.isEmpty() ? " refused: every session is taken" : "");
    if (session.isEmpty()) {
      return done(
          Responses.problem(
              HttpResponseStatus.SERVICE_UNAVAILABLE,
              "dashboardSessionsMax sessions are logged in; try again when one expires"));
    }
    FullHttpResponse r = Responses.redirect("/");
    r.headers()
        .set(HttpHeaderNames.SET_COOKIE, cookieHeader(session.get().id(), sessionMaxAgeSeconds));
    return done(r);
  }

  /** The action's form fields as {@code name=value} pairs, without the CSRF token. */
  private static String auditedFields(Map<String, List<String>> form) {
    StringBuilder fields = new StringBuilder();
    form.forEach(
        (name, values) -> {
          if (!name.equals("csrf")) {
            for (String value : values) {
              fields.append(fields.length() == 0 ? "" : " ").append(name).append('=').append(value);
            }
          }
        });
    return fields.toString();
  }

  /** HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure under TLS. */
  String cookieHeader(String value, long maxAgeSeconds) {
    return COOKIE
        + "="
        + value
        + "; Path=/; Max-Age="
        + maxAgeSeconds
        + "; HttpOnly; SameSite=Strict"
        + (tls ? "; Secure" : "");
  }

  private static String cookie(FullHttpRequest request) {
    String header = request.headers().get(HttpHeaderNames.COOKIE);
    if (header == null) {
      return null;
    }
    for (Cookie c : ServerCookieDecoder.STRICT.decode(header)) {
      if (c.name().equals(COOKIE)) {
        return c.value();
      }
    }
    return null;
  }

  private static String notice(Map<String, List<String>> params) {
    List<String> code = params.get("notice");
    List<String> n = params.get("n");
    if (code == null || code.isEmpty()) {
      return "";
    }
    long count = 0;
    try {
      count = n == null || n.isEmpty() ? 0 : Long.parseLong(n.get(0));
    } catch (NumberFormatException e) {
      return "";
    }
    return Actions.notice(code.get(0), count);
  }

  private static CompletableFuture<FullHttpResponse> done(FullHttpResponse response) {
    return CompletableFuture.completedFuture(response);
  }

  /** A page that is not there. */
  static final class NotFound extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotFound() {
      super("no such page", null, false, false);
    }
  }

  private static FullHttpResponse failed(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof NotFound) {
      return Responses.problem(HttpResponseStatus.NOT_FOUND, "no such page");
    }
    if (cause instanceof Call.BadRequest) {
      return Responses.problem(HttpResponseStatus.BAD_REQUEST, cause.getMessage());
    }
    if (cause instanceof StoreException e) {
      return Responses.problem(
          e.code() == StoreError.INVALID_ARGUMENT
              ? HttpResponseStatus.BAD_REQUEST
              : HttpResponseStatus.SERVICE_UNAVAILABLE,
          e.getMessage());
    }
    log.warn("dashboard request failed: {}", LogText.escape(cause.toString()));
    return Responses.problem(
        HttpResponseStatus.INTERNAL_SERVER_ERROR, "the request failed; see the server log");
  }

  private static void respond(
      ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
    Responses.secure(response);
    HttpUtil.setContentLength(response, response.content().readableBytes());
    HttpUtil.setKeepAlive(response, keepAlive);
    ChannelFuture written = ctx.writeAndFlush(response);
    if (!keepAlive) {
      written.addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug(
        "dashboard connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
