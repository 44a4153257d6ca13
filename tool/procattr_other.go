//go:build !linux

package tool

import "syscall"

func groupDyingWithChat() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
