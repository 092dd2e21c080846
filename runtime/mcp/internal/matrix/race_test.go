//go:build race

package matrix_test

// raceEnabled says the race detector is on: it changes what a call allocates (sync.Pool
// drops what it is given now and then), so allocation budgets are not measured under it.
const raceEnabled = true
