//go:build !race

package matrix_test

const raceEnabled = false
