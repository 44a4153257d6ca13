package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Support is what this kernel offers.
type Support struct {
	ABI int    // Landlock ABI version; 0 without Landlock
	Why string // why there is no box, when ABI is 0
}

// Probe asks the kernel for Landlock.
func Probe() Support {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		why := "this kernel has no Landlock"
		if err != nil {
			why += " (" + err.Error() + ")"
		}
		return Support{Why: why}
	}
	return Support{ABI: v}
}

// Box is a running box: chat's handle on it. Safe for concurrent use.
type Box struct {
	spec  Spec
	ctl   int // chat's end of the control socket
	notes string
	done  chan struct{} // closed when the box process has ended
	stop  chan struct{} // closed by Close
	once  sync.Once
}

// Start launches a box for spec: in its own namespaces where the kernel
// lets this user make them, else with Landlock alone.
func Start(spec Spec) (*Box, error) {
	if spec.TempDir == "" {
		spec.TempDir = os.TempDir()
	}
	if spec.Mode == Off && os.Getuid() != 0 {
		// Unconfined commands of a user other than root would need a user
		// namespace for the PID one, and in it setuid programs (sudo)
		// fail: they run as children of the box, which reaps and kills
		// what it can.
		return start(spec)
	}
	spec.Namespaces = true
	b, err := start(spec)
	if err != nil {
		nsErr := err
		spec.Namespaces = false
		if b, err = start(spec); err != nil {
			return nil, err
		}
		if spec.Mode != Off {
			b.notes = strings.TrimPrefix(b.notes+"; ", "; ") + "no namespaces (" + nsErr.Error() + "): the network is cut by Landlock (TCP only), credential folders are not hidden, and new entries at the top of the working directory cannot be made"
		}
	}
	return b, nil
}

// Notes says what the box could not do, "" when it does everything.
func (b *Box) Notes() string { return b.notes }

// Namespaces reports whether the box runs in its own namespaces.
func (b *Box) Namespaces() bool { return b.spec.Namespaces }

func start(spec Spec) (*Box, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	theirs := os.NewFile(uintptr(pair[1]), "box-control")
	cmd := exec.Command(self, boxArg, string(js))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if spec.Namespaces {
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWNS | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
		if spec.Mode == Off {
			// No confinement: only a PID namespace, so that every command's
			// children die with chat.
			cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWPID
		}
		if uid, gid := os.Getuid(), os.Getgid(); uid != 0 {
			cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
			cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
			cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		}
	}
	b := &Box{spec: spec, ctl: pair[0], done: make(chan struct{}), stop: make(chan struct{})}
	started := make(chan error, 1)
	// Pdeathsig fires when the thread that started the box ends: keep that
	// thread for the box's whole life.
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		go func() { _ = cmd.Wait(); close(b.done) }()
		select {
		case <-b.done:
		case <-b.stop:
			<-b.done
		}
	}()
	err = <-started
	theirs.Close()
	if err != nil {
		unix.Close(pair[0])
		return nil, err
	}
	ready := make(chan error, 1)
	go func() {
		r, err := readReply(b.ctl)
		switch {
		case err != nil:
			ready <- fmt.Errorf("the sandbox did not start: %w", err)
		case !r.Ready:
			ready <- errors.New(r.Error)
		default:
			b.notes = r.Notes
			ready <- nil
		}
	}()
	select {
	case err = <-ready:
	case <-time.After(20 * time.Second):
		err = errors.New("the sandbox did not start within 20s")
	}
	if err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Close ends the box and every command still running in it.
func (b *Box) Close() {
	b.once.Do(func() {
		unix.Close(b.ctl)
		close(b.stop)
	})
}

// Alive reports whether the box can still run commands.
func (b *Box) Alive() bool {
	select {
	case <-b.done:
		return false
	case <-b.stop:
		return false
	default:
		return true
	}
}

// ErrBoxGone is a command sent to a box that has ended.
var ErrBoxGone = errors.New("the sandbox has ended")

// Run runs argv (argv[0] an absolute path) in the box with env in dir,
// copying its output (stdout and stderr together) to out. It returns the
// exit status (128+n for a signal) once the command has exited and its
// output has ended or waitDelay has passed (a child left running in the
// background may hold the output open). When ctx is done the command's
// process group is killed.
func (b *Box) Run(ctx context.Context, argv, env []string, dir string, out io.Writer, waitDelay time.Duration) (int, error) {
	if !b.Alive() {
		return 0, ErrBoxGone
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		pr.Close()
		pw.Close()
		return 0, err
	}
	mine := pair[0]
	err = send(b.ctl, request{Argv: argv, Env: env, Dir: dir}, []int{int(pw.Fd()), pair[1]})
	pw.Close()
	unix.Close(pair[1])
	if err != nil {
		pr.Close()
		unix.Close(mine)
		return 0, fmt.Errorf("%w (%v)", ErrBoxGone, err)
	}
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(out, pr)
		close(copied)
	}()
	answered := make(chan reply, 1)
	go func() {
		r, err := readReply(mine)
		if err != nil {
			r = reply{Error: "the sandbox ended while the command ran"}
		}
		answered <- r
	}()
	var r reply
	select {
	case r = <-answered:
	case <-ctx.Done():
		unix.Shutdown(mine, unix.SHUT_RDWR) // the box kills the group
		r = <-answered
		r.Error = ""
	}
	unix.Close(mine)
	select {
	case <-copied:
	case <-time.After(waitDelay):
	}
	pr.Close()
	<-copied
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if r.Error != "" {
		return 0, errors.New(r.Error)
	}
	return r.Exit, nil
}
