package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles every Java block of README.md's "Using it" section, docs/client.md and
 * docs/failure-semantics.md against the real API, so the documentation cannot drift from the code.
 * A block's own {@code import} lines head its compilation unit, and then they are its only imports,
 * so a snippet that shows its imports shows all of them; blocks without any get a common prelude.
 */
final class DocSnippetsTest {
  private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
  private static final String PRELUDE =
      "import static java.nio.charset.StandardCharsets.UTF_8;\n"
          + "import dev.relay.client.*;\n"
          + "import dev.relay.protocol.*;\n"
          + "import java.sql.*;\n"
          + "import java.time.*;\n"
          + "import java.util.*;\n";

  @TempDir Path out;

  @Test
  void every_java_block_in_the_readme_client_and_failure_docs_compiles() throws IOException {
    String readme = Files.readString(Path.of("../README.md"));
    String usingIt = readme.substring(readme.indexOf("## Using it"));
    usingIt = usingIt.substring(0, usingIt.indexOf("\n## ", 1));
    List<String> blocks = new ArrayList<>(javaBlocks(usingIt));
    blocks.addAll(javaBlocks(Files.readString(Path.of("../docs/client.md"))));
    blocks.addAll(javaBlocks(Files.readString(Path.of("../docs/failure-semantics.md"))));
    assertThat(blocks).hasSizeGreaterThanOrEqualTo(5);
    assertThat(javaBlocks(Files.readString(Path.of("../docs/client.md"))))
        .as("docs/client.md shows the imports of every snippet")
        .allMatch(block -> block.startsWith("import "));

    List<JavaFileObject> sources = new ArrayList<>();
    for (int i = 0; i < blocks.size(); i++) {
      String name = "Snippet" + i;
      String imports = imports(blocks.get(i));
      String body = blocks.get(i).substring(imports.length());
      String code =
          (imports.isEmpty() ? PRELUDE : imports)
              + "class "
              + name
              + " {\n  static void send(byte[] payload) {}\n  void run() throws Exception {\n"
              + body
              + "\n  }\n}\n";
      sources.add(
          new SimpleJavaFileObject(
              URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
              return code;
            }
          });
    }
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    boolean ok =
        compiler
            .getTask(
                diagnostics,
                null,
                null,
                List.of("-classpath", System.getProperty("java.class.path"), "-d", out.toString()),
                null,
                sources)
            .call();

    assertThat(ok).as(diagnostics.toString()).isTrue();
  }

  /** The block's leading lines of imports (and blank lines among them), or "" when none. */
  private static String imports(String block) {
    int end = 0;
    for (String line : block.split("\n", -1)) {
      if (!line.startsWith("import ") && !line.isBlank()) {
        break;
      }
      end += line.length() + 1;
    }
    return block.startsWith("import ") ? block.substring(0, Math.min(end, block.length())) : "";
  }

  private static List<String> javaBlocks(String markdown) {
    List<String> blocks = new ArrayList<>();
    Matcher m = JAVA_BLOCK.matcher(markdown);
    while (m.find()) {
      blocks.add(m.group(1));
    }
    return blocks;
  }
}
