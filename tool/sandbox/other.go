//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// ServeIfAsked does nothing where there is no box.
func ServeIfAsked() {}

// Support is what this kernel offers.
type Support struct {
	ABI int
	Why string
}

// Probe: only Linux has Landlock.
func Probe() Support {
	return Support{Why: "Landlock is Linux's; this system has no sandbox chat can use"}
}

// Box is never started here.
type Box struct{}

// Start fails: there is no sandbox on this system.
func Start(Spec) (*Box, error) { return nil, errors.New("no sandbox on this system") }

func (*Box) Notes() string             { return "" }
func (*Box) Namespaces() bool          { return false }
func (*Box) Engine() Engine            { return Plain }
func (*Box) Protected() []string       { return nil }
func (*Box) Close()                    {}
func (*Box) Alive() bool               { return false }
func (*Box) Busy() bool                { return false }
func (*Box) Signal(syscall.Signal) int { return 0 }

// IO is a command's standard streams.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

func (*Box) RunIO(context.Context, []string, []string, string, IO, time.Duration) (int, error) {
	return 0, errors.New("no sandbox on this system")
}

func (*Box) Run(context.Context, []string, []string, string, io.Writer, time.Duration) (int, error) {
	return 0, errors.New("no sandbox on this system")
}

// ProcessLimit: no box, no limit.
func ProcessLimit() uint64 { return 0 }

// Capability is one row of ProbeEngines' table.
type Capability struct {
	What string
	Harm map[Engine]bool
}

// ProbeEngines: there is no box to probe here.
func ProbeEngines(string) ([]Capability, []Engine, map[Engine]string, error) {
	return nil, nil, nil, errors.New("no sandbox on this system: commands run unconfined, and every one asks")
}

// Gate: no box, no way out.
func (*Box) Gate() (net.Listener, string) { return nil, "" }

// ConnOwner: no box.
func (*Box) ConnOwner(int, string) (string, string) { return "", "" }

// Socket is a TCP socket of a box.
type Socket struct {
	Local, Remote int
	Inode         uint64
}

// Listening: no box.
func (*Box) Listening() []Socket { return nil }

// DialInside: no box.
func (*Box) DialInside(context.Context, int) (net.Conn, error) {
	return nil, errors.New("no sandbox on this system")
}

// SocketTag: no box.
func (*Box) SocketTag(uint64, string) string { return "" }

// KillTagged: no box.
func (*Box) KillTagged(string, string) int { return 0 }
