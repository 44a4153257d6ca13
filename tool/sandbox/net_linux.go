package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The box's network: its own namespace with only a loopback. Its one way
// out is the gate, a TCP socket the box listens on at its loopback and
// hands to chat at start, so that chat accepts the box's connections from
// outside (the proxy that decides runs in chat, never in the box). No
// route, no DNS, no other socket leads anywhere.

// gateListener listens on the box's loopback, for chat to accept on.
func gateListener() (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Listen(fd, 512); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// gated reports whether a box of spec has a network namespace of its own,
// and so a gate.
func (s Spec) gated() bool {
	return s.Mode != Off && (s.Engine == Bubblewrap || s.Engine == Namespaces)
}

// Gate is the listener the box's connections to the proxy arrive on, and
// the address commands in the box reach it at; nil when the box has no
// network namespace (its network is closed whole).
func (b *Box) Gate() (net.Listener, string) {
	b.gateOnce.Do(func() {
		if b.gateFile == nil {
			return
		}
		l, err := net.FileListener(b.gateFile)
		b.gateFile.Close()
		if err != nil {
			return
		}
		b.gate = l
	})
	if b.gate == nil {
		return nil, ""
	}
	return b.gate, b.gate.Addr().String()
}

// dialInside connects to port on the box's loopback from inside its
// network namespace (a dev server a job started) and hands the socket out.
func dialInside(port int, fds []int) {
	replyFD := fds[0]
	for _, fd := range fds[1:] {
		unix.Close(fd)
	}
	defer unix.Close(replyFD)
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		if err = unix.Connect(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			unix.Close(fd)
		}
	}
	if err != nil {
		_ = send(replyFD, reply{Error: err.Error()}, nil)
		return
	}
	_ = send(replyFD, reply{}, []int{fd})
	unix.Close(fd)
}

// DialInside connects to port on the box's loopback: what a job serves
// there, reached from the host.
func (b *Box) DialInside(ctx context.Context, port int) (net.Conn, error) {
	if !b.Alive() {
		return nil, ErrBoxGone
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(pair[0])
	err = send(b.ctl, request{Dial: port}, []int{pair[1]})
	unix.Close(pair[1])
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrBoxGone, err)
	}
	type answer struct {
		r   reply
		fds []int
		err error
	}
	got := make(chan answer, 1)
	go func() {
		r, fds, err := readReplyFDs(pair[0])
		got <- answer{r, fds, err}
	}()
	var a answer
	select {
	case a = <-got:
	case <-ctx.Done():
		unix.Shutdown(pair[0], unix.SHUT_RDWR)
		if a = <-got; a.err == nil {
			closeFDs(a.fds)
		}
		return nil, ctx.Err()
	}
	switch {
	case a.err != nil:
		return nil, a.err
	case a.r.Error != "":
		closeFDs(a.fds)
		return nil, errors.New(a.r.Error)
	case len(a.fds) != 1:
		closeFDs(a.fds)
		return nil, errors.New("the box sent no connection")
	}
	f := os.NewFile(uintptr(a.fds[0]), "box-conn")
	defer f.Close()
	return net.FileConn(f)
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// Socket is a TCP socket of the box's network namespace, as the kernel
// lists it.
type Socket struct {
	Local, Remote int // ports
	Inode         uint64
}

// Listening are the ports something in the box listens on (the gate
// aside), for forwarding to the host.
func (b *Box) Listening() []Socket {
	var out []Socket
	_, gate := b.Gate()
	_, gatePort, _ := net.SplitHostPort(gate)
	for _, s := range b.sockets(tcpListen) {
		if strconv.Itoa(s.Local) != gatePort && !containsPort(out, s.Local) {
			out = append(out, s)
		}
	}
	return out
}

func containsPort(ss []Socket, port int) bool {
	for _, s := range ss {
		if s.Local == port {
			return true
		}
	}
	return false
}

// The states of /proc/net/tcp.
const (
	tcpEstablished = "01"
	tcpListen      = "0A"
)

// sockets are the box's TCP sockets in state, from /proc/PID/net/tcp{,6}
// of a process inside its network namespace.
func (b *Box) sockets(state string) []Socket {
	pid := b.netPID()
	if pid == 0 {
		return nil
	}
	var out []Socket
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/net/" + name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the heading
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != state {
				continue
			}
			inode, _ := strconv.ParseUint(fields[9], 10, 64)
			out = append(out, Socket{Local: hexPort(fields[1]), Remote: hexPort(fields[2]), Inode: inode})
		}
		f.Close()
	}
	return out
}

func hexPort(addr string) int {
	_, p, ok := strings.Cut(addr, ":")
	if !ok {
		return 0
	}
	n, _ := strconv.ParseUint(p, 16, 16)
	return int(n)
}

// netPID is a process of the box inside its network namespace (bubblewrap
// and the launcher stay outside it); 0 when there is none.
func (b *Box) netPID() int {
	b.netMu.Lock()
	defer b.netMu.Unlock()
	if b.netPid != 0 && sameNetNS(b.netPid, b.netNS) {
		return b.netPid
	}
	if b.pid == 0 {
		return 0
	}
	mine, _ := os.Readlink("/proc/self/ns/net")
	queue := []int{b.pid}
	for seen := 0; len(queue) > 0 && seen < 64; seen++ {
		pid := queue[0]
		queue = queue[1:]
		ns, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/net")
		if err == nil && ns != mine && b.own(pid) {
			b.netPid, b.netNS = pid, ns
			return pid
		}
		queue = append(queue, children(pid)...)
	}
	return 0
}

func sameNetNS(pid int, ns string) bool {
	got, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/net")
	return err == nil && got == ns
}

// ConnOwner finds the command whose connection to the gate came from
// remotePort inside the box: the value of the variable tag in the
// environment of the process that holds it (chat marks each command it
// starts), and the command line of that process's session leader (every
// command runs in a session of its own); "" where not found.
func (b *Box) ConnOwner(remotePort int, tag string) (tagged, command string) {
	// A process that is between fork and exec is not seen for a moment:
	// look again, briefly.
	for try := 0; try < 3; try++ {
		if try > 0 {
			time.Sleep(20 * time.Millisecond)
		}
		var inode uint64
		for _, s := range b.sockets(tcpEstablished) {
			if s.Local == remotePort {
				inode = s.Inode
				break
			}
		}
		if inode == 0 {
			continue
		}
		if pid := b.holderOf(inode); pid != 0 {
			if tagged = environValue(pid, tag); tagged != "" || try == 2 {
				return tagged, sessionCommand(pid)
			}
		}
	}
	return "", ""
}

// SocketTag is the value of the variable tag in the environment of the
// process that holds socket inode ("" when not found).
func (b *Box) SocketTag(inode uint64, tag string) string {
	if pid := b.holderOf(inode); pid != 0 {
		return environValue(pid, tag)
	}
	return ""
}

// holderOf is a box process that holds socket inode (0: none).
func (b *Box) holderOf(inode uint64) int {
	want := "socket:[" + strconv.FormatUint(inode, 10) + "]"
	for _, pid := range b.processes() {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd"
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, _ := os.Readlink(dir + "/" + fd.Name()); l == want {
				return pid
			}
		}
	}
	return 0
}

// environValue is key's value in the environment pid started with.
func environValue(pid int, key string) string {
	if key == "" {
		return ""
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// sessionCommand is the command line of pid's session leader (bash -c
// COMMAND: the COMMAND), else pid's own.
func sessionCommand(pid int) string {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// pid (comm) state ppid pgrp session: comm may hold spaces and parens.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	fields := strings.Fields(rest)
	leader := pid
	if len(fields) > 3 {
		if sid, err := strconv.Atoi(fields[3]); err == nil {
			// The leader's pid is as chat sees it only when the box shares
			// chat's PID namespace; else pid's own line is the best left.
			if _, err := os.Stat("/proc/" + strconv.Itoa(sid)); err == nil && sameSession(sid, sid) {
				leader = sid
			}
		}
	}
	cmd := cmdline(leader)
	if len(cmd) >= 3 && (cmd[1] == "-c" || cmd[1] == "-lc") {
		return cmd[2]
	}
	return strings.Join(cmd, " ")
}

func sameSession(pid, sid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 3 && fields[3] == strconv.Itoa(sid)
}

func cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// netState is the Box's part for the network.
type netState struct {
	gateFile *os.File // the gate as the box sent it; Gate makes it a listener
	gateOnce sync.Once
	gate     net.Listener
	netMu    sync.Mutex
	netPid   int
	netNS    string
}

// closeGate stops accepting the box's connections.
func (b *Box) closeGate() {
	b.gateOnce.Do(func() {
		if b.gateFile != nil {
			b.gateFile.Close()
		}
	})
	if b.gate != nil {
		b.gate.Close()
	}
}

// KillTagged kills every process of the box whose environment holds
// tag=value (a command chat marked, and all it started): what a stopped
// command leaves behind dies even when the box's own kill did not reach
// it. It says how many it killed.
func (b *Box) KillTagged(tag, value string) int {
	if value == "" || !b.Alive() || b.pid == 0 {
		return 0
	}
	n := 0
	for _, pid := range b.processes() {
		if environValue(pid, tag) == value && syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
