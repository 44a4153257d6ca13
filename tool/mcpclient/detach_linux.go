package mcpclient

import (
	"os/exec"
	"syscall"
)

// detach makes a server process die with chat, even when chat is killed
// without a chance to close it (SIGKILL): the kernel sends it SIGKILL.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
