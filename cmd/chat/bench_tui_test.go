//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// BenchmarkTUI reports the REPL's start, launch to the first frame with
// the input on a pseudo-terminal of its own (first-frame-ms; a process
// that only prints the same words takes print-baseline-ms there), and,
// in a tmux pane, the process's CPU to show a 20,000-chunk answer
// (cpu-ms-20k-chunks), waited for through a tmux control client: polling
// capture-pane would start a tmux process every millisecond beside it.
// Then, the answer shown, the CPU it takes per second waiting for input
// (idle-cpu-ms-per-s, from a second's window after half a second to
// settle; /proc counts in 10 ms ticks, so one run says little, the mean
// of many more).
func BenchmarkTUI(b *testing.B) { eachBuild(b, benchTUI) }

func benchTUI(b *testing.B, bin string) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("no tmux")
	}
	// The marker has no hyphen: glamour may break a word at one.
	text := strings.Repeat("tok ", 20000) + "ENDOFANSWER"
	srv := oaitest.New(b)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: text, Piece: 4} })
	home := b.TempDir()
	env := []string{"HOME=" + home, "TERM=xterm-256color", "OPENAI_BASE_URL=" + srv.BaseURL(), "CHAT_MODEL=scripted-model"}
	var firstFrame, baseline, cpu, idle time.Duration
	for i := 0; b.Loop(); i++ {
		printf := exec.Command("printf", "Ask anything\\n")
		baseline += timeToText(b, printf, "Ask anything", 120, 40)
		repl := exec.Command(bin, "--no-save")
		repl.Env = env
		firstFrame += timeToText(b, repl, "Ask anything", 120, 40)

		// A fresh tmux server each time: restarting one on the same socket
		// races with its shutdown.
		sock := fmt.Sprintf("chat-bench-%d-%d", os.Getpid(), i)
		tmux := func(args ...string) string {
			out, _ := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput()
			return string(out)
		}
		launch := fmt.Sprintf("exec env -i %s %s --no-save", strings.Join(env, " "), bin)
		tmux("new-session", "-d", "-s", "b", "-x", "120", "-y", "40", launch)
		control := attachTmuxControl(b, sock, "b")
		if err := control.waitForText("b", "Ask anything", 30*time.Second); err != nil {
			b.Fatal(err, tmux("capture-pane", "-p", "-t", "b"))
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(tmux("display-message", "-p", "-t", "b", "#{pane_pid}")))
		before, err := procCPU(pid)
		if err != nil {
			b.Fatal(err)
		}
		if err := control.command("send-keys -t b go Enter", false); err != nil {
			b.Fatal(err)
		}
		if err := control.waitForText("b", "ENDOFANSWER", 60*time.Second); err != nil {
			b.Fatal(err, tmux("capture-pane", "-p", "-t", "b"))
		}
		after, _ := procCPU(pid)
		cpu += after - before
		time.Sleep(500 * time.Millisecond)
		before, _ = procCPU(pid)
		time.Sleep(time.Second)
		after, _ = procCPU(pid)
		idle += after - before
		tmux("kill-server")
	}
	n := float64(b.N)
	b.ReportMetric(float64(firstFrame.Microseconds())/1000/n, "first-frame-ms")
	b.ReportMetric(float64(baseline.Microseconds())/1000/n, "print-baseline-ms")
	b.ReportMetric(float64(cpu.Milliseconds())/n, "cpu-ms-20k-chunks")
	b.ReportMetric(float64(idle.Milliseconds())/n, "idle-cpu-ms-per-s")
	b.ReportMetric(0, "ns/op")
}

// keyProbes is how many keys each point of BenchmarkTUILongSession times:
// a key waits for the renderer's next tick (framesPerSecond), a wait spread
// evenly over 0–17 ms, so one key says little and the median of a few
// moves by a few milliseconds from run to run.
const keyProbes = 31

// BenchmarkTUILongSession drives one REPL through a long session (5,000
// turns; CHAT_LONG_TURNS sets another count): answers of a few
// paragraphs, a tool call every tenth turn. At turns 10, 100, 1,000, 2,500 and
// the last it reports the process's RSS and the time from a keystroke to
// the frame that shows it (the median of keyProbes keys, timed through a
// tmux control client: see tmuxControl). A long session must
// stay flat: the same memory and latency at turn 5,000 as at turn 10.
func BenchmarkTUILongSession(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("no tmux")
	}
	turns := 5000
	if n, err := strconv.Atoi(os.Getenv("CHAT_LONG_TURNS")); err == nil && n > 0 {
		turns = n
	}
	paragraph := strings.Repeat("A few words of the answer, as a model writes them, one after another. ", 4)
	srv := oaitest.New(b)
	// A local server's window, said as llama-server says it: the session
	// is compacted as it grows, as a real one would be.
	srv.SetWindow(16384)
	srv.SayWindow()
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		last := req.Messages[len(req.Messages)-1]
		n := req.Index
		if len(req.Tools) == 0 { // a summary
			return oaitest.Answer{Text: "The person asked numbered questions and got answers of a few paragraphs."}
		}
		if last.Role != "tool" && n%10 == 9 {
			return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprintf("c%d", n), Name: "list_files", Args: `{"path":"."}`}}}
		}
		q := strings.TrimPrefix(lastUserOf(req), "question ")
		return oaitest.Answer{Text: paragraph + "\n\n" + paragraph + "\n\n" + paragraph + "\n\nDONE" + q + "END", Piece: 64}
	})
	home, dir := b.TempDir(), b.TempDir()
	for b.Loop() {
		sock := fmt.Sprintf("chat-long-%d", os.Getpid())
		tmux := func(args ...string) string {
			out, _ := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput()
			return string(out)
		}
		waitFor := func(s string) time.Duration {
			start := time.Now()
			for deadline := start.Add(60 * time.Second); !strings.Contains(tmux("capture-pane", "-p", "-t", "b"), s); time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					b.Fatalf("%q never appeared:\n%s", s, tmux("capture-pane", "-p", "-t", "b"))
				}
			}
			return time.Since(start)
		}
		env := fmt.Sprintf("cd %s && exec env -i HOME=%s TERM=xterm-256color OPENAI_BASE_URL=%s CHAT_MODEL=scripted-model %s --sandbox off", dir, home, srv.BaseURL(), chatBin)
		tmux("new-session", "-d", "-s", "b", "-x", "100", "-y", "30", env)
		defer tmux("kill-server")
		waitFor("Ask anything")
		pid, _ := strconv.Atoi(strings.TrimSpace(tmux("display-message", "-p", "-t", "b", "#{pane_pid}")))
		control := attachTmuxControl(b, sock, "b")
		probe := func(at int) {
			var lat []time.Duration
			for k := 0; k < keyProbes; k++ {
				mark := fmt.Sprintf("kq%dx%d", at, k)
				d, err := control.keyToFrame("b", mark, 10*time.Second)
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, d)
				for range mark {
					if err := control.command("send-keys -t b BSpace", false); err != nil {
						b.Fatal(err)
					}
				}
				waitFor("Ask anything")
			}
			slices.Sort(lat)
			median := lat[keyProbes/2]
			rss := procRSS(pid)
			b.ReportMetric(float64(rss)/(1<<20), fmt.Sprintf("rss-MB-turn%d", at))
			b.ReportMetric(float64(median.Microseconds())/1000, fmt.Sprintf("key-ms-turn%d", at))
			b.Logf("turn %d: RSS %.1f MB, keystroke to frame %v (median of %d; %v–%v)", at, float64(rss)/(1<<20), median, keyProbes, lat[0], lat[keyProbes-1])
		}
		for i := 1; i <= turns; i++ {
			tmux("send-keys", "-t", "b", "-l", fmt.Sprintf("question %d", i))
			tmux("send-keys", "-t", "b", "Enter")
			waitFor(fmt.Sprintf("DONE%dEND", i))
			if i == 10 || i == 100 || i == 1000 || i == 2500 || i == turns {
				probe(i)
			}
		}
	}
	b.ReportMetric(0, "ns/op")
}

// procRSS is a process's resident set, in bytes.
func procRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// schedCPU is a process's CPU time in nanoseconds, all its threads
// (/proc/PID/task/*/schedstat: finer than the 10 ms ticks of
// /proc/PID/stat). A thread that ended takes its time with it: Go keeps
// its threads.
func schedCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total time.Duration
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			total += time.Duration(n)
		}
	}
	return total
}

// BenchmarkTUIKeyAtLength reports the CPU of a key typed (in a burst of
// 200, without bracketed paste) when the input already holds 20 and 2,000
// characters (cpu-µs-per-key): a key must cost the same however long the
// input is (it cost ~3 ms at 2,000, growing with the text).
func BenchmarkTUIKeyAtLength(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("no tmux")
	}
	srv := oaitest.New(b)
	for _, length := range benchLengths() {
		b.Run(fmt.Sprintf("chars=%d", length), func(b *testing.B) {
			var cpu time.Duration
			keys := 0
			for i := 0; b.Loop(); i++ {
				sock := fmt.Sprintf("chat-keys-%d-%d-%d", os.Getpid(), length, i)
				tmux := func(args ...string) string {
					out, _ := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput()
					return string(out)
				}
				launch := fmt.Sprintf("exec env -i HOME=%s TERM=xterm-256color OPENAI_BASE_URL=%s CHAT_MODEL=scripted-model %s --no-save", b.TempDir(), srv.BaseURL(), chatBin)
				tmux("new-session", "-d", "-s", "k", "-x", "120", "-y", "40", launch)
				control := attachTmuxControl(b, sock, "k")
				if err := control.waitForText("k", "Ask anything", 30*time.Second); err != nil {
					b.Fatal(err)
				}
				pid, _ := strconv.Atoi(strings.TrimSpace(tmux("display-message", "-p", "-t", "k", "#{pane_pid}")))
				tmux("send-keys", "-t", "k", "-l", words(length-1)+"F")
				if err := control.waitForText("k", "F", 30*time.Second); err != nil {
					b.Fatal(err)
				}
				time.Sleep(100 * time.Millisecond)
				before := schedCPU(pid)
				tmux("send-keys", "-t", "k", "-l", words(199)+"G")
				if err := control.waitForText("k", "G", 30*time.Second); err != nil {
					b.Fatal(err)
				}
				cpu += schedCPU(pid) - before
				keys += 200
				tmux("kill-server")
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(keys), "cpu-µs-per-key")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// words is n characters of prose: words and spaces, as a person types.
func words(n int) string {
	return strings.Repeat("the quick brown fox jumps over a lazy dog ", n/42+1)[:n]
}

// benchLengths are the input lengths BenchmarkTUIKeyAtLength types at
// (CHAT_KEY_LENGTHS="20,600,2000,4000" for more).
func benchLengths() []int {
	out := []int{20, 2000}
	if s := os.Getenv("CHAT_KEY_LENGTHS"); s != "" {
		out = nil
		for _, f := range strings.Split(s, ",") {
			if n, err := strconv.Atoi(f); err == nil && n > 1 {
				out = append(out, n)
			}
		}
	}
	return out
}
