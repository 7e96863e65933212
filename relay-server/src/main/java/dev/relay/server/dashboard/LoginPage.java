package dev.relay.server.dashboard;

/** The login form: one password field for the admin token (or the worker token, read-only). */
final class LoginPage {
  private LoginPage() {}

  static String render(Visitor visitor, String problem) {
    return Html.page(
        "Log in",
        visitor,
        problem,
        "<form method=\"post\" action=\"/login\" id=\"login\">"
            + "<p><label for=\"token\">Token</label> "
            + "<input type=\"password\" id=\"token\" name=\"token\" autocomplete=\"off\" autofocus>"
            + " <button type=\"submit\">Log in</button></p></form>"
            + "<p>The admin token (<code>--admin-token-file</code>) allows actions; the worker"
            + " token (<code>--auth-token-file</code>) gives a read-only view.</p>");
  }
}
