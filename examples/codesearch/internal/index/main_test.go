package index

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine of an index (its readers, its watcher) outlives it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
