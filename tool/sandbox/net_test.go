//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// boxEngines are the engines with a network namespace that start here.
func netEngines(t *testing.T) []Spec {
	t.Helper()
	var specs []Spec
	base := Spec{Mode: WorkspaceWrite, Workdir: t.TempDir(), TempDir: t.TempDir()}
	if bw := FindBwrap(""); bw != "" {
		s := base
		s.Bwrap = bw
		specs = append(specs, s)
	}
	return append(specs, base)
}

// TestTheGateIsTheOnlyWayOut: what a command in the box sends to the gate
// arrives at chat's listener, and the command that sent it is named; a
// host service on the same port number is not reached, nor is anything
// else outside.
func TestTheGateIsTheOnlyWayOut(t *testing.T) {
	needLandlock(t)
	host, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	reached := make(chan struct{}, 4)
	go func() {
		for {
			c, err := host.Accept()
			if err != nil {
				return
			}
			reached <- struct{}{}
			c.Close()
		}
	}()
	hostPort := host.Addr().(*net.TCPAddr).Port
	for _, spec := range netEngines(t) {
		b := startBox(t, spec)
		t.Run(string(b.Engine()), func(t *testing.T) {
			gate, addr := b.Gate()
			if gate == nil {
				t.Fatalf("no gate (%s)", b.Notes())
			}
			_, port, _ := net.SplitHostPort(addr)
			got := make(chan string, 1)
			go func() {
				c, err := gate.Accept()
				if err != nil {
					got <- err.Error()
					return
				}
				defer c.Close()
				from := c.RemoteAddr().(*net.TCPAddr).Port
				line, _ := bufio.NewReader(c).ReadString('\n')
				tagged, _ := b.ConnOwner(from, "CHAT_TEST_TAG")
				got <- strings.TrimSpace(line) + " from " + tagged
			}()
			// The tag is in the command's environment from its start, as
			// chat puts it there.
			var buf strings.Builder
			code, err := b.Run(context.Background(), []string{"/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + port + "; echo hello >&3; sleep 1; :"},
				[]string{"PATH=" + os.Getenv("PATH"), "CHAT_TEST_TAG=seven"}, spec.Workdir, &buf, time.Second)
			out := buf.String()
			if err != nil {
				t.Fatal(err)
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			if s := <-got; s != "hello from seven" {
				t.Errorf("the gate heard %q", s)
			}
			out, code = shell(t, b, spec.Workdir, "exec 3<>/dev/tcp/127.0.0.1/"+itoa(hostPort)+" && echo CONNECTED")
			if code == 0 || strings.Contains(out, "CONNECTED") {
				t.Errorf("the host's loopback was reached from the box: %s", out)
			}
			out, _ = shell(t, b, spec.Workdir, "exec 3<>/dev/tcp/1.1.1.1/80 && echo CONNECTED; getent hosts example.org && echo RESOLVED")
			if strings.Contains(out, "CONNECTED") || strings.Contains(out, "RESOLVED") {
				t.Errorf("the box got out: %s", out)
			}
		})
	}
	select {
	case <-reached:
		t.Error("the host's service was reached")
	default:
	}
}

// TestDialInsideReachesAJobsServer: a server a command left running in
// the box is reached from chat, and listed.
func TestDialInsideReachesAJobsServer(t *testing.T) {
	needLandlock(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	for _, spec := range netEngines(t) {
		b := startBox(t, spec)
		t.Run(string(b.Engine()), func(t *testing.T) {
			if err := os.WriteFile(spec.Workdir+"/index.html", []byte("served from the box\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				_, _ = b.Run(ctx, []string{py, "-m", "http.server", "--bind", "0.0.0.0", "47123"}, []string{"PATH=" + os.Getenv("PATH")}, spec.Workdir, io.Discard, time.Second)
			}()
			var ls []Socket
			for i := 0; i < 200 && len(ls) == 0; i++ {
				time.Sleep(50 * time.Millisecond)
				ls = b.Listening()
			}
			if len(ls) != 1 || ls[0].Local != 47123 {
				t.Fatalf("listening: %+v", ls)
			}
			c, err := b.DialInside(context.Background(), 47123)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, _ = io.WriteString(c, "GET /index.html HTTP/1.0\r\n\r\n")
			body, _ := io.ReadAll(c)
			if !strings.Contains(string(body), "served from the box") {
				t.Errorf("got %q", body)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
