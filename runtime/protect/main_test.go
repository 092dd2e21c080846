package protect

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test leaves no goroutine behind: a fetch of the issuer's keys ends with its time
// limit, whoever waited for it. (Idle keep-alive connections of the test's HTTP clients,
// which net/http keeps on purpose, are not the verifiers'.)
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	)
}
