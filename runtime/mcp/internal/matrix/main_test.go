package matrix_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test leaves no goroutine behind, on either side, over any transport. (Idle
// keep-alive connections of the test's HTTP clients, which net/http keeps on purpose, are
// the client side's, not the server's.)
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	)
}
