package semantic

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine of the indexes outlives them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
