//go:build !race

package otelmcp

const raceEnabled = false
