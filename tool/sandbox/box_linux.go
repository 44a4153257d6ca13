package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// boxArg marks the re-executed chat that is a box: chat boxArg SPEC.
const boxArg = "__chat_sandbox_box"

// ctlFD is the box's end of the control socket (the first ExtraFile).
const ctlFD = 3

// request is one command sent to the box; its output and reply sockets
// travel with it as rights.
type request struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
}

// reply is the box's answer: ready (or why not) once, then an exit status
// per command on that command's reply socket.
type reply struct {
	Ready bool   `json:"ready,omitempty"`
	Error string `json:"error,omitempty"`
	Notes string `json:"notes,omitempty"` // what the box could not do, said once
	Exit  int    `json:"exit"`            // 128+n for a signal
}

// ServeIfAsked turns this process into a box when chat started it as one,
// and never returns then. Call it first thing in main.
func ServeIfAsked() {
	if len(os.Args) != 3 || os.Args[1] != boxArg {
		return
	}
	os.Exit(serve(os.Args[2]))
}

func serve(specJSON string) int {
	// The commands the box starts must not inherit the control socket.
	unix.CloseOnExec(ctlFD)
	ctl := ctlFD
	var spec Spec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fail(ctl, err)
	}
	// Children of commands that outlive them come here to be reaped (when
	// the box is not already the first process of a PID namespace).
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	var notes []string
	if spec.Mode != Off {
		if spec.Namespaces {
			n, err := enterNamespaces(spec)
			if err != nil {
				return fail(ctl, err)
			}
			notes = n
		}
		if err := restrict(spec); err != nil {
			return fail(ctl, fmt.Errorf("landlock: %w", err))
		}
	}
	if err := send(ctl, reply{Ready: true, Notes: strings.Join(notes, "; ")}, nil); err != nil {
		return 1
	}
	r := newReaper()
	buf := make([]byte, maxMessage) // one buffer: a request is decoded before the next is read
	for {
		req, fds, err := receive(ctl, buf)
		if err != nil {
			return 0 // chat closed the socket: the box ends, and its commands with it
		}
		go r.run(req, fds)
	}
}

func fail(ctl int, err error) int {
	_ = send(ctl, reply{Error: err.Error()}, nil)
	return 1
}

// enterNamespaces sets up the mount namespace chat created the box in:
// a fresh /proc (only the box's processes), loopback up (a test server
// inside works, nothing outside is reachable), the protected folders
// read-only and the credential folders hidden. What cannot be done and
// is not essential comes back as notes.
func enterNamespaces(spec Spec) (notes []string, err error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("private mounts: %w", err)
	}
	for _, p := range spec.protectedPaths() {
		if err := readOnlyBind(p); err != nil {
			return nil, fmt.Errorf("making %s read-only: %w", p, err)
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		notes = append(notes, "the box sees the host's /proc ("+err.Error()+")")
	}
	if err := loopbackUp(); err != nil {
		notes = append(notes, "no loopback inside the box ("+err.Error()+")")
	}
	for _, p := range spec.Hidden {
		if within(p, spec.Workdir) {
			continue // hiding it would hide the working directory
		}
		if err := hide(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			notes = append(notes, "could not hide "+p+" ("+err.Error()+")")
		}
	}
	return notes, nil
}

// readOnlyBind mounts p on itself read-only. A remount inside a user
// namespace must keep the flags the kernel locked (nosuid, nodev …).
func readOnlyBind(p string) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range [][2]int64{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
		if int64(st.Flags)&f[0] != 0 { // an int32 on 32-bit systems
			flags |= uintptr(f[1])
		}
	}
	return unix.Mount("", p, "", flags, "")
}

// hide covers a folder with an empty read-only tmpfs, and a file (or a
// socket) with /dev/null.
func hide(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0500")
	}
	return unix.Mount("/dev/null", p, "", unix.MS_BIND, "")
}

func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// restrict applies Landlock to the box (every thread), as far as the
// kernel supports it.
func restrict(spec Spec) error {
	cfg := landlock.V11
	if spec.Namespaces {
		// The private network namespace already cuts every connection
		// (UDP and DNS too, which Landlock cannot), and leaves loopback
		// inside the box working.
		cfg.HandledAccessNet = 0
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts", "/dev/shm").WithIoctlDev().IgnoreIfMissing(),
	}
	for _, root := range spec.writableRoots() {
		rules = append(rules, writableRules(spec, root)...)
	}
	return cfg.BestEffort().Restrict(rules...)
}

// writableRules grants writing under root. Without a mount namespace the
// protected folders cannot be exempted from a grant on their parent, so
// the working directory's other entries are granted one by one (new
// entries at its top level then cannot be made).
func writableRules(spec Spec, root string) []landlock.Rule {
	prot := spec.protectedPaths()
	if spec.Namespaces || root != spec.Workdir || len(prot) == 0 {
		return []landlock.Rule{landlock.RWDirs(root).WithRefer().IgnoreIfMissing()}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var rules []landlock.Rule
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		switch {
		case slices.Contains(prot, p):
		case e.IsDir():
			rules = append(rules, landlock.RWDirs(p).WithRefer().IgnoreIfMissing())
		default:
			rules = append(rules, landlock.RWFiles(p).IgnoreIfMissing())
		}
	}
	return rules
}

// within reports whether p is dir or under it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// reaper starts commands and collects every child's exit, including
// orphans that come to the box, so none is left a zombie.
type reaper struct {
	mu      sync.Mutex
	waiting map[int]chan syscall.WaitStatus
}

func newReaper() *reaper {
	r := &reaper{waiting: map[int]chan syscall.WaitStatus{}}
	sig := make(chan os.Signal, 16)
	signal.Notify(sig, syscall.SIGCHLD)
	go func() {
		for range sig {
			r.reap()
		}
	}()
	return r
}

func (r *reaper) reap() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
		r.mu.Lock()
		if ch, ok := r.waiting[pid]; ok {
			ch <- ws
			delete(r.waiting, pid)
		}
		// Orphans nobody waits for are simply reaped.
		r.mu.Unlock()
	}
}

// run starts one command with fds[0] as its output and answers on
// fds[1]: the exit status, or nothing if chat hung up first, in which
// case the command's whole process group is killed.
func (r *reaper) run(req request, fds []int) {
	if len(fds) != 2 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return
	}
	out, replyFD := fds[0], fds[1]
	defer unix.Close(replyFD)
	null, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(out)
		_ = send(replyFD, reply{Error: err.Error()}, nil)
		return
	}
	ch := make(chan syscall.WaitStatus, 1)
	r.mu.Lock()
	pid, err := syscall.ForkExec(req.Argv[0], req.Argv, &syscall.ProcAttr{
		Dir: req.Dir, Env: req.Env, Files: []uintptr{uintptr(null), uintptr(out), uintptr(out)},
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err == nil {
		r.waiting[pid] = ch
	}
	r.mu.Unlock()
	unix.Close(null)
	unix.Close(out)
	if err != nil {
		_ = send(replyFD, reply{Error: fmt.Sprintf("starting %s: %v", req.Argv[0], err)}, nil)
		return
	}
	r.reap() // it may have ended before it was registered
	hangup := make(chan struct{})
	go func() {
		var b [1]byte
		_, _, _ = unix.Recvfrom(replyFD, b[:], 0) // returns when chat closes its end
		close(hangup)
	}()
	select {
	case ws := <-ch:
		answer := reply{Exit: ws.ExitStatus()}
		if ws.Signaled() {
			answer.Exit = 128 + int(ws.Signal())
		}
		_ = send(replyFD, answer, nil)
	case <-hangup:
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-ch
	}
}
