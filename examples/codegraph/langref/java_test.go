package langref

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// jdkSources are the JDK's own sources, which Debian's openjdk-17-source installs (and
// scripts/test.sh with it, and javac, default-jdk-headless).
const jdkSources = "/usr/lib/jvm/openjdk-17/lib/src.zip"

// The JDK's java.util.regex and java.util.stream, against javac: codegraph's calls, and what
// javac attributes each to (langref/JavacCalls.java, through the compiler's tree API; the
// sources compiled as a patch of java.base).
func TestJavaAgainstJavac(t *testing.T) {
	t.Parallel()
	z, err := zip.OpenReader(jdkSources)
	if err != nil {
		t.Fatalf("%v: install Debian's openjdk-17-source (scripts/test.sh does)", err)
	}
	defer z.Close()
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Fatalf("%v: install a JDK (Debian's default-jdk-headless; scripts/test.sh does)", err)
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "java.base")
	for _, f := range z.File {
		if !strings.HasPrefix(f.Name, "java.base/java/util/regex/") && !strings.HasPrefix(f.Name, "java.base/java/util/stream/") || !strings.HasSuffix(f.Name, ".java") {
			continue
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := againstReference(t, root, "Java (javac)", func(ctx context.Context) ([]byte, error) {
		classes := filepath.Join(dir, "classes")
		if out, err := exec.CommandContext(ctx, javac, "-d", classes, "JavacCalls.java").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("javac JavacCalls.java: %v\n%s", err, out)
		}
		return output(exec.CommandContext(ctx, "java", "-cp", classes, "JavacCalls", root, "java.base"))
	})
	if s.Resolved < 2000 || s.Precision() < 0.9 || s.Recall() < 0.5 {
		t.Errorf("Java against javac: %s", s)
	}
}
