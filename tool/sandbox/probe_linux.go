package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// probeArg marks chat re-executed inside a box to try one thing: chat
// probeArg KIND TARGET. It prints "done" when the thing worked.
const probeArg = "__chat_sandbox_probe"

// probe tries one thing from inside a box.
func probe(kind, target string) bool {
	var err error
	switch kind {
	case "write":
		err = os.WriteFile(target, []byte("probe"), 0o644)
	case "read":
		_, err = os.ReadFile(target)
	case "tcp", "unix":
		var c net.Conn
		if c, err = net.DialTimeout(kind, target, 2*time.Second); err == nil {
			_, err = c.Write([]byte("probe"))
			c.Close()
		}
	case "udp":
		var c net.Conn
		if c, err = net.Dial("udp", target); err == nil {
			_, err = c.Write([]byte("probe"))
			c.Close()
		}
	case "proc":
		_, err = os.Stat("/proc/" + target)
	case "tty":
		// TIOCSTI on the controlling terminal, if there is one; the filter
		// answers EPERM before the kernel looks at the descriptor.
		if f, e := os.OpenFile("/dev/tty", os.O_RDWR, 0); e == nil {
			f.Close()
			return true
		}
		c := byte(0)
		err = unix.IoctlSetPointerInt(1, unix.TIOCSTI, int(c))
		if errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EBADF) {
			err = nil // not filtered: a terminal would have taken it
		}
	case "survive":
		// Leaves a process of its own session behind, named target.
		cmd := exec.Command("sleep", "120")
		cmd.Args[0] = target
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		err = cmd.Start()
	}
	return err == nil
}

// Capability is one row of Probe's table.
type Capability struct {
	What string
	// Harm is true where a command in the box could do it.
	Harm map[Engine]bool
}

// ProbeEngines starts a box of each engine this machine can make (with
// bwrap, the one given), runs real probes in it and reports what a
// command could do. Engines that do not start are left out, with why.
func ProbeEngines(bwrap string) (rows []Capability, engines []Engine, failed map[Engine]string, err error) {
	base, err := os.MkdirTemp(filepath.Join(os.TempDir()), "chat-sandbox-probe-")
	if err != nil {
		return nil, nil, nil, err
	}
	defer os.RemoveAll(base)
	// The workspace and the rest live outside /tmp, which a namespaced box
	// replaces with its own.
	home, _ := os.UserHomeDir()
	root, err := os.MkdirTemp(cmpDir(home), ".chat-sandbox-probe-")
	if err != nil {
		return nil, nil, nil, err
	}
	defer os.RemoveAll(root)
	work, outside, secret := filepath.Join(root, "work"), filepath.Join(root, "outside"), filepath.Join(root, "credentials")
	for _, d := range []string{work + "/.git", outside, secret} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, nil, nil, err
		}
	}
	_ = os.WriteFile(filepath.Join(secret, "key"), []byte("secret"), 0o600)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, err
	}
	defer tcp.Close()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, err
	}
	defer udp.Close()
	sock := filepath.Join(root, "session.sock")
	unixLn, err := net.Listen("unix", sock)
	if err != nil {
		return nil, nil, nil, err
	}
	defer unixLn.Close()
	got := map[string]chan struct{}{"tcp": make(chan struct{}, 8), "udp": make(chan struct{}, 8), "unix": make(chan struct{}, 8)}
	accept := func(ln net.Listener, kind string) {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			got[kind] <- struct{}{}
			c.Close()
		}
	}
	go accept(tcp, "tcp")
	go accept(unixLn, "unix")
	go func() {
		buf := make([]byte, 16)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
			got["udp"] <- struct{}{}
		}
	}()
	self, err := os.Executable()
	if err != nil {
		return nil, nil, nil, err
	}
	type check struct {
		what, kind, target, heard string
	}
	checks := []check{
		{"write outside the working directory", "write", filepath.Join(outside, "probe"), ""},
		{"write into .git", "write", filepath.Join(work, ".git", "probe"), ""},
		{"read a credential folder", "read", filepath.Join(secret, "key"), ""},
		{"connect by TCP (to 127.0.0.1 outside)", "tcp", tcp.Addr().String(), "tcp"},
		{"send by UDP (to 127.0.0.1 outside)", "udp", udp.LocalAddr().String(), "udp"},
		{"connect to a unix socket on disk", "unix", sock, "unix"},
		{"see chat's process", "proc", fmt.Sprint(os.Getpid()), ""},
		{"type into chat's terminal", "tty", "", ""},
	}
	rows = make([]Capability, len(checks)+1)
	for i, c := range checks {
		rows[i] = Capability{What: c.what, Harm: map[Engine]bool{}}
	}
	rows[len(checks)] = Capability{What: "outlive chat (a process of its own session)", Harm: map[Engine]bool{}}
	failed = map[Engine]string{}
	candidates := []Engine{Bubblewrap, Namespaces, LandlockOnly}
	for _, e := range candidates {
		spec := Spec{Mode: WorkspaceWrite, Workdir: work, TempDir: filepath.Join(base, string(e)), Hidden: []string{secret}, Protected: []string{filepath.Join(work, ".git")}}
		switch e {
		case Bubblewrap:
			if spec.Bwrap = bwrap; bwrap == "" {
				failed[e] = "bubblewrap is not installed"
				continue
			}
		case LandlockOnly:
			spec.NoNamespaces = true
		}
		b, err := Start(spec)
		if err != nil || b.Engine() != e {
			if err == nil {
				err = errors.New(b.Notes())
				b.Close()
			}
			failed[e] = err.Error()
			continue
		}
		engines = append(engines, e)
		run := func(kind, target string) bool {
			var out strings.Builder
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			code, err := b.Run(ctx, []string{self, probeArg, kind, target}, []string{"PATH=" + os.Getenv("PATH")}, work, &out, time.Second)
			return err == nil && code == 0 && strings.Contains(out.String(), "done")
		}
		for i, c := range checks {
			worked := run(c.kind, c.target)
			if c.heard != "" {
				// It counts only if it arrived. A probe that says it sent is
				// given time to be heard (inside a network namespace a send
				// to the box's own loopback succeeds and arrives nowhere);
				// one that failed can only have been heard already.
				wait := time.Duration(0)
				if worked {
					wait = 2 * time.Second
				}
				select {
				case <-got[c.heard]:
					worked = true
				case <-time.After(wait):
					worked = false
				}
			}
			if c.kind == "write" {
				_, statErr := os.Stat(c.target)
				worked = statErr == nil
				_ = os.Remove(c.target)
			}
			rows[i].Harm[e] = worked
		}
		marker := fmt.Sprintf("chat-probe-%d-%s", os.Getpid(), e)
		run("survive", marker)
		b.Close()
		<-b.done
		// The namespace's processes are killed as its first one ends, but
		// leave /proc a moment later.
		survived := processNamed(marker)
		for deadline := time.Now().Add(2 * time.Second); survived && time.Now().Before(deadline); survived = processNamed(marker) {
			time.Sleep(20 * time.Millisecond)
		}
		rows[len(checks)].Harm[e] = survived
		killNamed(marker)
	}
	return rows, engines, failed, nil
}

func cmpDir(home string) string {
	if fi, err := os.Stat(home); err == nil && fi.IsDir() && home != "" {
		return home
	}
	return "/var/tmp"
}

// processNamed reports whether a process whose argv[0] is name runs.
func processNamed(name string) bool {
	return len(pidsNamed(name)) > 0
}

func killNamed(name string) {
	for _, pid := range pidsNamed(name) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func pidsNamed(name string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.HasPrefix(string(b), name+"\x00") {
			out = append(out, pid)
		}
	}
	return out
}
