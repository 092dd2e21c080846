//go:build !unix

package otelcoltest

// lockFile does not lock where flock is missing: packages tested at the same time may
// then each build the collector, and the last rename wins.
func lockFile(string) (func(), error) { return func() {}, nil }
