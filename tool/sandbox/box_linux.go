package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// boxArg marks the re-executed chat that is a box: chat boxArg SPEC.
const boxArg = "__chat_sandbox_box"

// ctlFD is the box's end of the control socket (the first ExtraFile).
const ctlFD = 3

// request is one command sent to the box; its output and reply sockets
// travel with it as rights.
type request struct {
	Argv []string `json:"argv,omitempty"`
	Env  []string `json:"env,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	// Dial asks for a connection to this port of the box's loopback
	// instead of a command; only the reply socket travels with it.
	Dial int `json:"dial,omitempty"`
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
	if len(os.Args) == 4 && os.Args[1] == probeArg {
		if probe(os.Args[2], os.Args[3]) {
			fmt.Println("done")
		}
		os.Exit(0)
	}
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
	if spec.Engine == Namespaces && !spec.Entered {
		return launch(ctl, spec)
	}
	// Children of commands that outlive them come here to be reaped (when
	// the box is not already the first process of a PID namespace).
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	var notes []string
	switch spec.Engine {
	case Namespaces:
		n, err := enterNamespaces(spec)
		if err != nil {
			return fail(ctl, err)
		}
		notes = n
		spec.TempDir = "/tmp"
	case Bubblewrap:
		spec.TempDir = "/tmp" // bwrap mounted the box's own folder there
	}
	if spec.Mode != Off {
		if spec.MaxProcs > 0 {
			lim := unix.Rlimit{Cur: spec.MaxProcs, Max: spec.MaxProcs}
			if err := unix.Setrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
				notes = append(notes, "no process limit ("+err.Error()+")")
			}
		}
		dropBoundingSet()
		if err := restrict(spec); err != nil {
			return fail(ctl, fmt.Errorf("landlock: %w", err))
		}
		if err := loadFilter(spec.Engine != LandlockOnly); err != nil {
			return fail(ctl, err)
		}
	}
	var gate []int
	if spec.gated() {
		fd, err := gateListener()
		if err != nil {
			notes = append(notes, "no way out of the box for allowed domains ("+err.Error()+")")
		} else {
			gate = []int{fd}
		}
	}
	err := send(ctl, reply{Ready: true, Notes: strings.Join(notes, "; ")}, gate)
	closeFDs(gate) // chat holds it now: nothing in the box can accept on it
	if err != nil {
		return 1
	}
	tmp := spec.TempDir
	if spec.Mode == Off {
		tmp = "" // nothing is confined: the person's own TMPDIR
	}
	r := newReaper(tmp)
	r.gomodcache = spec.GoModCache
	buf := make([]byte, maxMessage) // one buffer: a request is decoded before the next is read
	for {
		req, fds, err := receive(ctl, buf)
		if err != nil {
			return 0 // chat closed the socket: the box ends, and its commands with it
		}
		if req.Dial > 0 {
			go dialInside(req.Dial, fds)
			continue
		}
		go r.run(req, fds)
	}
}

func fail(ctl int, err error) int {
	_ = send(ctl, reply{Error: err.Error()}, nil)
	return 1
}

// launch starts the box in new namespaces, as a child of this launcher.
// The launcher is a fresh exec of chat and so dumpable: chat itself is
// not (its /proc/PID/environ stays closed), and a child it cloned into a
// user namespace would inherit that, leaving the child's uid_map to root
// and every other user without namespaces. The launcher then only waits.
func launch(ctl int, spec Spec) int {
	spec.Entered = true
	js, err := json.Marshal(spec)
	if err != nil {
		return fail(ctl, err)
	}
	self, err := os.Executable()
	if err != nil {
		return fail(ctl, err)
	}
	uid, gid := os.Getuid(), os.Getgid()
	cmd := exec.Command(self, boxArg, string(js))
	cmd.Env = os.Environ()
	cmd.Stderr = os.Stderr
	cmd.ExtraFiles = []*os.File{os.NewFile(uintptr(ctl), "box-control")}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setsid: true, Pdeathsig: syscall.SIGKILL,
		// A user namespace for root too: the box's capabilities then reach
		// only what it owns (no device, no module, no host mount).
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
	}
	if uid != 0 {
		// The box keeps its own uid (so do the files its commands make) and,
		// across the exec, the capabilities it needs to set itself up in the
		// new namespaces; it lets them go before any command runs.
		cmd.SysProcAttr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}
	}
	// Pdeathsig fires when the thread that started the box ends.
	runtime.LockOSThread()
	if err := cmd.Start(); err != nil {
		return fail(ctl, fmt.Errorf("namespaces: %w", err))
	}
	unix.Close(ctl)
	if err := cmd.Wait(); err != nil {
		return 1
	}
	return 0
}

// dropBoundingSet clears the ambient capabilities and empties the
// capability bounding set of every thread, so
// that a command started as root (root's own chat, or the box's root in a
// user namespace) gets no capability at exec. Without CAP_SETPCAP (an
// ordinary user without namespaces) there is nothing to drop.
func dropBoundingSet() {
	_, _, _ = psx.Syscall6(unix.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0, 0)
	for c := uintptr(0); c <= 63; c++ {
		if _, _, e := psx.Syscall3(unix.SYS_PRCTL, unix.PR_CAPBSET_DROP, c, 0); e == unix.EINVAL || e == unix.EPERM {
			return // past the last capability, or not ours to drop
		}
	}
}

// enterNamespaces sets up the mount namespace the launcher created the
// box in: a fresh /proc (only the box's processes), loopback up (a test
// server inside works, nothing outside is reachable), the box's own
// folder on /tmp, the protected paths read-only and the credential
// folders and the session's sockets hidden. What cannot be done and is
// not essential comes back as notes.
func enterNamespaces(spec Spec) (notes []string, err error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("private mounts: %w", err)
	}
	if err := privateTmp(spec); err != nil {
		return nil, fmt.Errorf("a private /tmp: %w", err)
	}
	if spec.homeHidden() {
		if err := privateHome(spec); err != nil {
			return nil, fmt.Errorf("hiding %s: %w", spec.Home, err)
		}
	}
	for _, p := range spec.Protected {
		if err := readOnlyBind(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("making %s read-only: %w", p, err)
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		notes = append(notes, "the box sees the host's /proc ("+err.Error()+")")
	}
	if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil && !errors.Is(err, os.ErrNotExist) {
		notes = append(notes, "the box shares /dev/shm ("+err.Error()+")")
	}
	if err := loopbackUp(); err != nil {
		notes = append(notes, "no loopback inside the box ("+err.Error()+")")
	}
	for _, p := range spec.coveredHidden() {
		if spec.goneWithHome(p) {
			continue
		}
		if err := hide(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			notes = append(notes, "could not hide "+p+" ("+err.Error()+")")
		}
	}
	return notes, nil
}

// privateTmp puts the box's own folder on /tmp, then the roots that lay
// under /tmp (the working directory, often, in tests) back where they
// were, from handles taken before /tmp was covered.
func privateTmp(spec Spec) error {
	if spec.TempDir == "" || spec.TempDir == "/tmp" {
		return nil
	}
	type keep struct {
		path string
		fd   int
	}
	var kept []keep
	for _, p := range append([]string{spec.Workdir}, spec.Writable...) {
		if !within("/tmp", p) {
			continue
		}
		fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		kept = append(kept, keep{p, fd})
	}
	if self, err := os.Executable(); err == nil && within("/tmp", self) {
		// chat itself (a test binary) must stay where the box re-executes it from
		if fd, err := unix.Open(self, unix.O_PATH|unix.O_CLOEXEC, 0); err == nil {
			kept = append(kept, keep{self, fd})
		}
	}
	defer func() {
		for _, k := range kept {
			unix.Close(k.fd)
		}
	}()
	if err := unix.Mount(spec.TempDir, "/tmp", "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	for _, k := range kept {
		if err := bindKept(k.fd, k.path, false); err != nil {
			return fmt.Errorf("%s: %w", k.path, err)
		}
	}
	return nil
}

// privateHome covers the person's home with an empty folder and puts
// back, from handles taken before, what the box shows of it (read-only)
// and the writable roots under it (the working directory) as they were.
// chat's own executable, when it lives there, is among what is shown.
func privateHome(spec Spec) error {
	visible, writable := spec.homeKept()
	type keep struct {
		path string
		fd   int
		ro   bool
	}
	var kept []keep
	defer func() {
		for _, k := range kept {
			unix.Close(k.fd)
		}
	}()
	for i, p := range append(visible, writable...) {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // gone, or a dangling link: nothing to show
		}
		kept = append(kept, keep{p, fd, i < len(visible)})
	}
	if err := unix.Mount("tmpfs", spec.Home, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return err
	}
	for _, k := range kept {
		if err := bindKept(k.fd, k.path, k.ro); err != nil {
			return fmt.Errorf("%s: %w", k.path, err)
		}
	}
	return nil
}

// bindKept makes a mount point at path for what fd holds (a folder or a
// file) and binds it there, read-only when ro.
func bindKept(fd int, path string, ro bool) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	var err error
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		err = os.MkdirAll(path, 0o755)
	} else if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
		err = os.WriteFile(path, nil, 0o600)
	}
	if err != nil {
		return err
	}
	if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", fd), path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	if ro {
		return remountReadOnly(path)
	}
	return nil
}

// readOnlyBind mounts p on itself read-only. A remount inside a user
// namespace must keep the flags the kernel locked (nosuid, nodev …).
func readOnlyBind(p string) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	return remountReadOnly(p)
}

// remountReadOnly makes the bind mount at p read-only. A remount inside a
// user namespace must keep the flags the kernel locked (nosuid, nodev …).
func remountReadOnly(p string) error {
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

// reaper starts commands and collects every child's exit, including
// orphans that come to the box, so none is left a zombie.
type reaper struct {
	mu      sync.Mutex
	waiting map[int]chan syscall.WaitStatus
	tmp     string // every command's TMPDIR: the box's own folder
	// gomodcache is the person's Go module cache (read-only in the box):
	// commands fill one of their own from it.
	gomodcache string
}

func newReaper(tmp string) *reaper {
	r := &reaper{waiting: map[int]chan syscall.WaitStatus{}, tmp: tmp}
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
	if len(fds) != 2 && len(fds) != 4 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return
	}
	// out and the reply socket; then, when the streams are apart, stdin
	// and stderr.
	out, replyFD := fds[0], fds[1]
	defer unix.Close(replyFD)
	errFD := out
	var null int
	var err error
	if len(fds) == 4 {
		null, errFD = fds[2], fds[3]
	} else if null, err = unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
		unix.Close(out)
		_ = send(replyFD, reply{Error: err.Error()}, nil)
		return
	}
	env := req.Env
	if r.tmp != "" {
		// Caches in the box's own folder: go test, npm test, pip build
		// there, and never write what the person's next build outside runs.
		boxed := []string{"TMPDIR=" + r.tmp, "XDG_CACHE_HOME=" + r.tmp + "/.cache", "npm_config_cache=" + r.tmp + "/.npm"}
		boxed = append(boxed, goEnv(env, r.tmp, r.gomodcache)...)
		env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
			return slices.ContainsFunc(boxed, func(b string) bool { return strings.HasPrefix(kv, b[:strings.IndexByte(b, '=')+1]) })
		})
		env = append(env, boxed...)
	}
	ch := make(chan syscall.WaitStatus, 1)
	r.mu.Lock()
	// A session of its own: no controlling terminal, so nothing a command
	// does reaches the person's (no /dev/tty, no keys pushed into it).
	pid, err := syscall.ForkExec(req.Argv[0], req.Argv, &syscall.ProcAttr{
		Dir: req.Dir, Env: env, Files: []uintptr{uintptr(null), uintptr(out), uintptr(errFD)},
		Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err == nil {
		r.waiting[pid] = ch
	}
	r.mu.Unlock()
	unix.Close(null)
	unix.Close(out)
	if errFD != out {
		unix.Close(errFD)
	}
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
