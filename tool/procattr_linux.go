package tool

import "syscall"

// groupDyingWithChat starts a command in its own process group, killed by
// the kernel when chat dies, even by kill -9.
func groupDyingWithChat() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
