package mcpfunc

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test leaves no goroutine behind: a tool's call ends with its context, and the
// tests' clients close.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
