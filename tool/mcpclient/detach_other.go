//go:build !linux

package mcpclient

import "os/exec"

// detach does nothing where the kernel cannot tie a child's life to ours;
// Close still stops the servers on every ordinary exit.
func detach(*exec.Cmd) {}
