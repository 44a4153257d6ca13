package sandbox

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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
	// gone: the box was seen dead (its socket refused a command) before
	// its process was reaped: the next command starts a new box.
	gone atomic.Bool
	pid  int    // the box's process, outside
	self string // chat's executable: the box's own processes run it
	// bwrap is bubblewrap's executable, links resolved, when it is the
	// engine: its processes are the box's own too.
	bwrap string
	netState
}

// Start launches a box for spec with the strongest engine that works
// here: bubblewrap (when spec.Bwrap names it), else namespaces chat makes
// itself, else Landlock alone. Notes says what a weaker engine lacks.
func Start(spec Spec) (*Box, error) {
	if spec.TempDir == "" {
		spec.TempDir = os.TempDir()
	}
	if err := os.MkdirAll(spec.TempDir, 0o700); err != nil {
		return nil, err
	}
	if spec.Mode == Off {
		spec.Engine = Plain
		return start(spec)
	}
	if spec.Protected == nil {
		spec.Protected = FindProtected(spec.Workdir)
	}
	var failed []string
	engines := []Engine{Namespaces, LandlockOnly}
	if spec.Bwrap != "" {
		engines = append([]Engine{Bubblewrap}, engines...)
	}
	if spec.NoNamespaces {
		engines = []Engine{LandlockOnly}
		failed = append(failed, "namespaces: not asked for")
	}
	for _, e := range engines {
		spec.Engine = e
		b, err := start(spec)
		if err != nil {
			failed = append(failed, string(e)+": "+err.Error())
			continue
		}
		if e == LandlockOnly {
			b.notes = join(b.notes, "no namespaces ("+strings.Join(failed, "; ")+"): other processes of yours are visible, new entries beside a protected path cannot be made, and the network is closed whole (loopback too)")
		} else if e == Namespaces && spec.Bwrap != "" {
			b.notes = join(b.notes, "bubblewrap did not start ("+strings.Join(failed, "; ")+")")
		}
		return b, nil
	}
	return nil, errors.New(strings.Join(failed, "; "))
}

func join(a, b string) string { return strings.TrimPrefix(a+"; "+b, "; ") }

// Notes says what the box could not do, "" when it does everything.
func (b *Box) Notes() string { return b.notes }

// Engine says what built the box.
func (b *Box) Engine() Engine { return b.spec.Engine }

// Protected are the paths the box keeps read-only.
func (b *Box) Protected() []string { return b.spec.Protected }

// Namespaces reports whether the box runs in its own namespaces.
func (b *Box) Namespaces() bool { return b.spec.Engine == Bubblewrap || b.spec.Engine == Namespaces }

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
	if spec.Engine == Bubblewrap {
		cmd = exec.Command(spec.Bwrap, append(bwrapArgs(spec, self), self, boxArg, string(js))...)
	}
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.ExtraFiles = []*os.File{theirs}
	// What the box says on its way up is in the error, never on the
	// person's screen.
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	// A session of its own: no controlling terminal for the box or
	// anything it starts.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if spec.Engine == Plain && os.Getuid() == 0 {
		// No confinement: only a PID namespace, so that every command's
		// children die with chat.
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWPID
	}
	b := &Box{spec: spec, ctl: pair[0], done: make(chan struct{}), stop: make(chan struct{}), self: self}
	started := make(chan error, 1)
	var pid int
	// Pdeathsig fires when the thread that started the box ends: keep that
	// thread for the box's whole life.
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		pid = cmd.Process.Pid
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
		r, fds, err := readReplyFDs(b.ctl)
		if len(fds) == 1 && err == nil && r.Ready {
			b.gateFile = os.NewFile(uintptr(fds[0]), "box-gate")
		} else {
			closeFDs(fds)
		}
		switch {
		case err != nil:
			select { // its last words
			case <-b.done:
			case <-time.After(2 * time.Second):
			}
			ready <- fmt.Errorf("the sandbox did not start: %s", cmp.Or(strings.TrimSpace(stderr.String()), err.Error()))
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
	b.pid = pid
	if spec.Engine == Bubblewrap {
		b.bwrap, _ = filepath.EvalSymlinks(spec.Bwrap)
	}
	if spec.Mode != Off {
		b.notes = join(b.notes, b.bound(pid))
	}
	return b, nil
}

// bound puts the box, up and idle, into a cgroup of its own that bounds
// its processes and memory together; it says what is left unbounded.
func (b *Box) bound(pid int) string {
	mem := cmp.Or(b.spec.MaxMemory, physicalMemory()/2)
	cg, err := newBoxCgroup(spareProcesses, mem)
	if err == nil {
		if err = cg.adopt(pid); err != nil {
			cg.remove()
		}
	}
	if err != nil {
		if os.Getuid() == 0 {
			return "no cgroup for the box (" + err.Error() + "): its processes and memory are not bounded"
		}
		return "no cgroup for the box (" + err.Error() + "): its memory is not bounded (its processes are)"
	}
	go func() { <-b.done; cg.remove() }()
	return ""
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// Close ends the box and every command still running in it.
func (b *Box) Close() {
	b.once.Do(func() {
		unix.Close(b.ctl)
		close(b.stop)
		b.closeGate()
	})
}

// Alive reports whether the box can still run commands.
func (b *Box) Alive() bool {
	if b.gone.Load() {
		return false
	}
	select {
	case <-b.done:
		return false
	case <-b.stop:
		return false
	default:
		return true
	}
}

// killConfirmWait bounds how long a cancelled command's end is waited for.
const killConfirmWait = 2 * time.Second

// Run runs argv (argv[0] an absolute path) in the box with env in dir,
// copying its output (stdout and stderr together) to out. It returns the
// exit status (128+n for a signal) once the command has exited and its
// output has ended or waitDelay has passed (a child left running in the
// background may hold the output open). When ctx is done the command's
// process group is killed.
func (b *Box) Run(ctx context.Context, argv, env []string, dir string, out io.Writer, waitDelay time.Duration) (int, error) {
	return b.RunIO(ctx, argv, env, dir, IO{Stdout: out}, waitDelay)
}

// IO is a command's standard streams: Stdin (nil: /dev/null) is copied
// in, Stdout out, and Stderr apart from it (nil: with Stdout).
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// RunIO is Run with the streams apart: a hook reads its JSON on stdin and
// answers on stdout, its reason on stderr.
func (b *Box) RunIO(ctx context.Context, argv, env []string, dir string, std IO, waitDelay time.Duration) (int, error) {
	if !b.Alive() {
		return 0, ErrBoxGone
	}
	var closers []*os.File
	closeAll := func() {
		for _, f := range closers {
			f.Close()
		}
		closers = nil
	}
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			closers = append(closers, w)
		}
		return r, w, err
	}
	pr, pw, err := pipe()
	if err != nil {
		return 0, err
	}
	fds := []int{int(pw.Fd())}
	readers := []struct {
		r *os.File
		w io.Writer
	}{{pr, std.Stdout}}
	var stdinW *os.File
	if std.Stdin != nil || std.Stderr != nil {
		inR, inW, err := os.Pipe()
		if err != nil {
			closeAll()
			pr.Close()
			return 0, err
		}
		closers = append(closers, inR)
		stdinW = inW
		if std.Stdin == nil {
			inW.Close()
			stdinW = nil
		}
		er, ew, err := pipe()
		if err != nil {
			closeAll()
			pr.Close()
			return 0, err
		}
		readers = append(readers, struct {
			r *os.File
			w io.Writer
		}{er, std.Stderr})
		fds = append(fds, int(inR.Fd()), int(ew.Fd()))
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		closeAll()
		return 0, err
	}
	mine := pair[0]
	// The reply socket goes second: a box of an older build takes two.
	fds = append(fds[:1], append([]int{pair[1]}, fds[1:]...)...)
	err = send(b.ctl, request{Argv: argv, Env: env, Dir: dir}, fds)
	closeAll()
	unix.Close(pair[1])
	if err != nil {
		for _, r := range readers {
			r.r.Close()
		}
		if stdinW != nil {
			stdinW.Close()
		}
		unix.Close(mine)
		b.gone.Store(true)
		return 0, fmt.Errorf("%w (%v)", ErrBoxGone, err)
	}
	if stdinW != nil {
		go func() {
			_, _ = io.Copy(stdinW, std.Stdin)
			stdinW.Close()
		}()
	}
	copied := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		for _, r := range readers[1:] {
			wg.Go(func() { _, _ = io.Copy(r.w, r.r) })
		}
		_, _ = io.Copy(std.Stdout, pr)
		wg.Wait()
		close(copied)
	}()
	answered := make(chan reply, 1)
	go func() {
		r, err := readReply(mine)
		if err != nil && ctx.Err() == nil {
			b.gone.Store(true)
			r = reply{Error: "the sandbox ended while the command ran"}
		} else if err != nil {
			r = reply{Error: "the sandbox ended while the command ran"}
		}
		answered <- r
	}()
	var r reply
	select {
	case r = <-answered:
	case <-ctx.Done():
		// The box kills the group when chat stops writing, and closes its
		// end once it has reaped the command: the read that ends then
		// says the command is gone (a job stopped is stopped when Stop
		// returns). That confirmation is waited for a while, not forever:
		// a box that does not give it must not hang chat.
		unix.Shutdown(mine, unix.SHUT_WR)
		select {
		case r = <-answered:
		case <-time.After(killConfirmWait):
			unix.Shutdown(mine, unix.SHUT_RDWR)
			r = <-answered
		}
		r.Error = ""
	}
	unix.Close(mine)
	select {
	case <-copied:
	case <-time.After(waitDelay):
	}
	for _, r := range readers {
		r.r.Close()
	}
	<-copied
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if r.Error != "" {
		return 0, errors.New(r.Error)
	}
	return r.Exit, nil
}

// spareProcesses is how many processes a box may add to those the user
// already runs: a fork bomb stops there, a parallel build does not.
const spareProcesses = 1024

// ProcessLimit is the box's RLIMIT_NPROC: the processes this user runs
// now (the kernel counts them all, in the box or not) and spareProcesses
// more; 0 (no limit) where they cannot be counted.
func ProcessLimit() uint64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	uid := uint32(os.Getuid())
	var n uint64
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		var st unix.Stat_t
		if unix.Stat("/proc/"+e.Name(), &st) == nil && st.Uid == uid {
			n++
		}
	}
	limit := n + spareProcesses
	var cur unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NPROC, &cur) == nil && cur.Cur < limit {
		return 0 // already tighter
	}
	return limit
}
