package otelmcp

import (
	"testing"

	"go.uber.org/goleak"
)

// No test leaves a goroutine behind: what Setup starts, Shutdown stops. (Idle keep-alive
// connections of the tests' HTTP clients, which net/http keeps on purpose, are theirs.)
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	)
}
