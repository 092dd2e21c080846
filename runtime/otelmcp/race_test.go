//go:build race

package otelmcp

// raceEnabled says the race detector is on: sync.Pool drops what it is given now and then,
// so that allocations counted under it are a few more, and vary.
const raceEnabled = true
