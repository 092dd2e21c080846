import com.sun.source.tree.*;
import com.sun.source.util.*;
import java.io.File;
import java.nio.file.*;
import java.util.*;
import javax.lang.model.element.*;
import javax.tools.*;

/**
 * Where javac says each call in some Java sources goes: the reference codegraph's Java calls
 * are compared with (langref.Compare). It attributes the sources under ROOT (compiled as a
 * patch of MODULE, when one is given, so that the JDK's own sources can be attributed), and
 * for every method call and construction prints one JSON object a line:
 *
 *   {"file": "java/util/regex/Pattern.java", "line": 7, "col": 3, "name": "compile", "targets": [["java/util/regex/Pattern.java", 1100]]}
 *
 * with the file, line and column (1-based) of the name called, and the file and line of the
 * name of the method or class declared in ROOT that it calls (a construction of a class that
 * declares no constructor goes to the class).
 *
 * usage: java JavacCalls ROOT [MODULE]
 */
public class JavacCalls {
  public static void main(String[] args) throws Exception {
    Path root = Paths.get(args[0]).toRealPath();
    List<File> files = new ArrayList<>();
    try (var walk = Files.walk(root)) {
      walk.filter(p -> p.toString().endsWith(".java")).sorted().forEach(p -> files.add(p.toFile()));
    }
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    StandardJavaFileManager fm = compiler.getStandardFileManager(null, null, null);
    List<String> options = new ArrayList<>(List.of("-proc:none", "-implicit:none", "-Xlint:none", "-nowarn"));
    if (args.length > 1) {
      options.addAll(List.of("--patch-module", args[1] + "=" + root));
    }
    JavacTask task = (JavacTask) compiler.getTask(null, fm, d -> {}, options, null, fm.getJavaFileObjectsFromFiles(files));
    Iterable<? extends CompilationUnitTree> units = task.parse();
    task.analyze();
    Trees trees = Trees.instance(task);
    SourcePositions positions = trees.getSourcePositions();
    for (CompilationUnitTree cu : units) {
      String file = root.relativize(Paths.get(cu.getSourceFile().toUri())).toString();
      String source = cu.getSourceFile().getCharContent(true).toString();
      new TreePathScanner<Void, Void>() {
        void report(Tree callee, long at, String name) {
          Element e = trees.getElement(getCurrentPath());
          List<String> targets = new ArrayList<>();
          if (e != null) {
            TreePath decl = trees.getPath(e);
            if (decl != null) {
              CompilationUnitTree dcu = decl.getCompilationUnit();
              Path dfile = Paths.get(dcu.getSourceFile().toUri());
              if (dfile.startsWith(root)) {
                long dpos = namePosition(decl.getLeaf(), dcu);
                targets.add("[" + quote(root.relativize(dfile).toString()) + ", " + dcu.getLineMap().getLineNumber(dpos) + "]");
              }
            }
          }
          long line = cu.getLineMap().getLineNumber(at);
          long col = cu.getLineMap().getColumnNumber(at);
          System.out.println("{\"file\": " + quote(file) + ", \"line\": " + line + ", \"col\": " + col + ", \"name\": " + quote(name)
              + ", \"targets\": " + targets + "}");
        }

        long namePosition(Tree t, CompilationUnitTree dcu) {
          long start = positions.getStartPosition(dcu, t);
          String name = t instanceof MethodTree m ? m.getName().toString() : t instanceof ClassTree c ? c.getSimpleName().toString() : "";
          if (name.equals("<init>") && t instanceof MethodTree) {
            // a constructor's name is its class's
            for (Tree p = null; p == null; ) break;
          }
          try {
            String text = dcu.getSourceFile().getCharContent(true).toString();
            long end = positions.getEndPosition(dcu, t);
            if (t instanceof MethodTree m && m.getName().contentEquals("<init>")) {
              return start;
            }
            int i = indexOfWord(text, name, (int) start, (int) end);
            return i >= 0 ? i : start;
          } catch (Exception ex) {
            return start;
          }
        }

        @Override
        public Void visitMethodInvocation(MethodInvocationTree node, Void v) {
          ExpressionTree sel = node.getMethodSelect();
          if (sel instanceof MemberSelectTree ms) {
            long end = positions.getEndPosition(cu, ms);
            String name = ms.getIdentifier().toString();
            report(ms, end - name.length(), name);
          } else if (sel instanceof IdentifierTree id) {
            report(id, positions.getStartPosition(cu, id), id.getName().toString());
          }
          return super.visitMethodInvocation(node, v);
        }

        @Override
        public Void visitNewClass(NewClassTree node, Void v) {
          Tree id = node.getIdentifier();
          if (id instanceof ParameterizedTypeTree pt) id = pt.getType();
          long at = id instanceof MemberSelectTree ms ? positions.getEndPosition(cu, ms) - ms.getIdentifier().length() : positions.getStartPosition(cu, id);
          String name = id instanceof MemberSelectTree ms ? ms.getIdentifier().toString() : id.toString();
          if (node.getClassBody() == null) {
            report(id, at, name);
          }
          return super.visitNewClass(node, v);
        }
      }.scan(cu, null);
    }
  }

  static int indexOfWord(String text, String word, int from, int to) {
    for (int i = text.indexOf(word, from); i >= 0 && i < to; i = text.indexOf(word, i + 1)) {
      boolean before = i == 0 || !Character.isJavaIdentifierPart(text.charAt(i - 1));
      boolean after = i + word.length() >= text.length() || !Character.isJavaIdentifierPart(text.charAt(i + word.length()));
      if (before && after) return i;
    }
    return -1;
  }

  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
