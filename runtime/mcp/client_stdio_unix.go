//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the command in a process group of its own, so that signals reach its
// children too: a server started through a launcher (npx, uvx, a shell) runs as the
// launcher's child, and keeps the pipes open if only the launcher is stopped.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends a signal to the command's process group.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		cmd.Process.Signal(sig)
	}
}
