//go:build !unix

package mcp

import (
	"os/exec"
	"syscall"
)

func ownGroup(cmd *exec.Cmd) {}

// signalGroup stops the process itself: without process groups, SIGTERM cannot be sent, so
// every signal kills.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	cmd.Process.Kill()
}
