package langref

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// regexSyntax is the crate regex-syntax (the regex crate's parser, no dependencies), whose
// sources Debian's librust-regex-syntax-dev installs (and scripts/test.sh with it).
const regexSyntax = "/usr/share/cargo/registry/regex-syntax-0.6.27"

// debianRustc is Debian's rustc 1.63 (scripts/test.sh installs it), which still has
// -Zsave-analysis: later compilers (a rustup toolchain on PATH may be one) removed it.
const debianRustc = "/usr/bin/rustc"

// regex-syntax, against rustc: codegraph's calls, and the function or method rustc's type
// checking resolved each to (langref/rustc_calls.py, from -Zsave-analysis).
func TestRustAgainstRustc(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(regexSyntax, "src", "lib.rs")); err != nil {
		t.Fatalf("%v: install Debian's librust-regex-syntax-dev (scripts/test.sh does)", err)
	}
	if _, err := os.Stat(debianRustc); err != nil {
		t.Fatalf("%v: install Debian's rustc (scripts/test.sh does)", err)
	}
	s := againstReference(t, regexSyntax, "Rust (rustc)", func(ctx context.Context) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "/usr/bin/python3", "rustc_calls.py", regexSyntax)
		cmd.Env = append(os.Environ(), "RUSTC="+debianRustc)
		return output(cmd)
	})
	if s.Resolved < 1500 || s.Precision() < 0.95 || s.Recall() < 0.6 {
		t.Errorf("Rust against rustc: %s", s)
	}
}
