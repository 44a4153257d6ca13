package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// clockTicks is the unit of utime and stime in /proc/PID/stat on Linux.
const clockTicks = 100

// procCPU is a process's user+system CPU time.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(ut+st) * time.Second / clockTicks, nil
}

// BenchmarkTUI runs the REPL in a tmux pane (a real pseudo-terminal) and
// reports: launch to the first frame with the input (startup-ms, which
// includes tmux starting the pane: compare the printf baseline below), and
// the process's CPU to show a 20,000-chunk answer (cpu-ms-20k-chunks).
func BenchmarkTUI(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("no tmux")
	}
	// The marker has no hyphen: glamour may break a word at one.
	text := strings.Repeat("tok ", 20000) + "ENDOFANSWER"
	srv := oaitest.New(b)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: text, Piece: 4} })
	home := b.TempDir()
	var startup, baseline, cpu time.Duration
	for i := 0; b.Loop(); i++ {
		// A fresh tmux server each time: restarting one on the same socket
		// races with its shutdown.
		sock := fmt.Sprintf("chat-bench-%d-%d", os.Getpid(), i)
		tmux := func(args ...string) string {
			out, _ := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput()
			return string(out)
		}
		waitFor := func(s string) {
			for deadline := time.Now().Add(30 * time.Second); !strings.Contains(tmux("capture-pane", "-p", "-t", "b"), s); time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					b.Fatalf("%q never appeared:\n%s", s, tmux("capture-pane", "-p", "-t", "b"))
				}
			}
		}
		start := time.Now()
		tmux("new-session", "-d", "-s", "b", "-x", "120", "-y", "40", "printf 'Ask anything\\n'; sleep 30")
		waitFor("Ask anything")
		baseline += time.Since(start)
		tmux("kill-server")
		sock += "-chat"

		env := fmt.Sprintf("exec env -i HOME=%s TERM=xterm-256color OPENAI_BASE_URL=%s CHAT_MODEL=scripted-model %s --no-save", home, srv.BaseURL(), chatBin)
		start = time.Now()
		tmux("new-session", "-d", "-s", "b", "-x", "120", "-y", "40", env)
		waitFor("Ask anything")
		startup += time.Since(start)
		pid, _ := strconv.Atoi(strings.TrimSpace(tmux("display-message", "-p", "-t", "b", "#{pane_pid}")))
		before, err := procCPU(pid)
		if err != nil {
			b.Fatal(err)
		}
		tmux("send-keys", "-t", "b", "go", "Enter")
		waitFor("ENDOFANSWER")
		after, _ := procCPU(pid)
		cpu += after - before
		tmux("kill-server")
	}
	n := float64(b.N)
	b.ReportMetric(float64(startup.Milliseconds())/n, "startup-ms")
	b.ReportMetric(float64(baseline.Milliseconds())/n, "printf-baseline-ms")
	b.ReportMetric(float64(cpu.Milliseconds())/n, "cpu-ms-20k-chunks")
	b.ReportMetric(0, "ns/op")
}
