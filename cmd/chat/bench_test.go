package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// These benchmarks run the real binary (built in TestMain) against a local
// server at full speed and report the child process's own figures:
// cpu-ms (user+system), wall-ms and maxrss-MB.

// watchPeakRSS samples the process's own peak (VmHWM in /proc) until it
// exits. The rusage of a child is no good here: Linux carries into it the
// resident size of the process that forked it (this test binary, tens of
// MB) from before the exec.
func watchPeakRSS(pid int) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		for {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if err != nil {
				break
			}
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					var kb int64
					fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
					peak = max(peak, kb)
				}
			}
			if strings.Contains(string(b), "State:\tZ") {
				break
			}
			time.Sleep(time.Millisecond)
		}
		out <- peak
	}()
	return out
}

// benchBuild is a chat binary to measure.
type benchBuild struct{ name, bin string }

// benchBuilds are this build and, when CHAT_BENCH_OLD names one, an older
// binary (make bench builds the last commit with forked modules): measured
// side by side, in turns, in one run.
func benchBuilds() []benchBuild {
	builds := []benchBuild{{"new", chatBin}}
	if old := os.Getenv("CHAT_BENCH_OLD"); old != "" {
		builds = append([]benchBuild{{"old", old}}, builds...)
	}
	return builds
}

// eachBuild runs bench once per build, as a sub-benchmark named after it.
func eachBuild(b *testing.B, bench func(b *testing.B, bin string)) {
	for _, build := range benchBuilds() {
		b.Run("build="+build.name, func(b *testing.B) { bench(b, build.bin) })
	}
}

// commandWith is command running bin instead of this build.
func commandWith(b testing.TB, bin string, srv *oaitest.Server, args ...string) *exec.Cmd {
	cmd := command(b, srv, args...)
	cmd.Path, cmd.Args[0] = bin, bin
	return cmd
}

// BenchmarkBinaryStream20000 consumes a 20,000-chunk answer in print mode;
// the server flushes every chunk, as a real local server does.
func BenchmarkBinaryStream20000(b *testing.B) {
	eachBuild(b, func(b *testing.B, bin string) { benchStream(b, bin, 20000) })
}

// BenchmarkBinaryHello is start-up to exit for a one-line answer.
func BenchmarkBinaryHello(b *testing.B) {
	eachBuild(b, func(b *testing.B, bin string) { benchStream(b, bin, 3) })
}

// benchStream runs chat -p and, as the plain client to compare with, curl
// posting the same request to the same server, in turns. Besides each
// one's CPU, wall time and peak RSS it reports exec-to-request: from the
// start of the process to the server beginning to serve the chat
// completion (chat may ask a local server its window before), which does
// not depend on how fast the server is.
func benchStream(b *testing.B, bin string, chunks int) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		b.Skip("no curl to compare with")
	}
	srv := oaitest.New(b)
	text := strings.Repeat("tok ", chunks)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: text, Piece: 4} })
	body := `{"model":"scripted-model","messages":[{"role":"user","content":"go"}],"stream":true,"stream_options":{"include_usage":true}}`
	var ours, theirs childFigures
	for b.Loop() {
		cmd := commandWith(b, bin, srv, "-p", "go")
		cmd.Stdout = io.Discard
		ours.add(b, srv, cmd)
		cmd = exec.Command(curl, "-sS", "-N", "-o", "/dev/null", "-H", "Content-Type: application/json",
			"-H", "Authorization: Bearer test", "--data-binary", body, srv.BaseURL()+"/chat/completions")
		theirs.add(b, srv, cmd)
	}
	ours.report(b, "")
	theirs.report(b, "curl-")
	b.ReportMetric(ours.cpu.Seconds()/theirs.cpu.Seconds(), "cpu-x-curl")
	b.ReportMetric(ours.wall.Seconds()/theirs.wall.Seconds(), "wall-x-curl")
	b.ReportMetric(ours.toRequest.Seconds()/theirs.toRequest.Seconds(), "exec-to-request-x-curl")
	b.ReportMetric(0, "ns/op")
}

// childFigures adds up what runs of one client cost.
type childFigures struct {
	cpu, wall, toRequest time.Duration
	rssKB                int64
	runs                 int
}

// add runs cmd to the end and adds its figures.
func (f *childFigures) add(b *testing.B, srv *oaitest.Server, cmd *exec.Cmd) {
	b.Helper()
	before := srv.RequestCount()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	peak := watchPeakRSS(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		b.Fatal(cmd.Args[0], err)
	}
	f.wall += time.Since(start)
	st := cmd.ProcessState
	f.cpu += st.UserTime() + st.SystemTime()
	f.rssKB = max(f.rssKB, <-peak)
	reqs := srv.Requests()
	if len(reqs) != before+1 {
		b.Fatalf("%s made %d chat completion requests", cmd.Args[0], len(reqs)-before)
	}
	f.toRequest += reqs[len(reqs)-1].Arrived.Sub(start)
	f.runs++
}

func (f *childFigures) report(b *testing.B, prefix string) {
	n := float64(f.runs)
	b.ReportMetric(float64(f.cpu.Microseconds())/1000/n, prefix+"cpu-ms/op")
	b.ReportMetric(float64(f.wall.Microseconds())/1000/n, prefix+"wall-ms/op")
	b.ReportMetric(float64(f.toRequest.Microseconds())/1000/n, prefix+"exec-to-request-ms/op")
	b.ReportMetric(float64(f.rssKB)/1024, prefix+"maxrss-MB")
}

// BenchmarkBinarySIGINT interrupts print mode mid-stream and reports how
// long until the server saw the connection close (closed-ms) and until the
// process exited (exit-ms).
func BenchmarkBinarySIGINT(b *testing.B) {
	srv := oaitest.New(b)
	var closed, exited time.Duration
	for b.Loop() {
		gate := oaitest.NewGate()
		srv.Push(oaitest.Answer{Text: "first words, then silence", Piece: 12, Gate: gate, GateAfter: 1})
		cmd := command(b, srv, "-p", "talk")
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		first := make([]byte, 12)
		if _, err := io.ReadFull(out, first); err != nil {
			b.Fatal(err)
		}
		<-gate.Entered()
		start := time.Now()
		_ = cmd.Process.Signal(syscall.SIGINT)
		<-srv.Hangups()
		closed += time.Since(start)
		_, _ = io.ReadAll(out)
		_ = cmd.Wait()
		exited += time.Since(start)
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(closed.Microseconds())/1000/float64(b.N), "closed-ms/op")
	b.ReportMetric(float64(exited.Microseconds())/1000/float64(b.N), "exit-ms/op")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkBinaryInit reports the package initialisation of `chat version`
// (the sum of GODEBUG=inittrace=1's clock times): what every run pays
// before main.
func BenchmarkBinaryInit(b *testing.B) { eachBuild(b, benchInit) }

func benchInit(b *testing.B, bin string) {
	var total time.Duration
	for b.Loop() {
		cmd := commandWith(b, bin, nil, "version")
		cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
		var trace strings.Builder
		cmd.Stderr = &trace
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		total += initClock(trace.String())
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "init-ms/op")
	b.ReportMetric(0, "ns/op")
}

// initClock adds up the clock times of inittrace lines:
// "init net @1.2 ms, 0.31 ms clock, 1024 bytes, 12 allocs".
func initClock(trace string) time.Duration {
	var total time.Duration
	for _, line := range strings.Split(trace, "\n") {
		f := strings.Fields(line)
		if len(f) >= 7 && f[0] == "init" && f[6] == "clock," {
			if d, err := time.ParseDuration(f[4] + "ms"); err == nil {
				total += d
			}
		}
	}
	return total
}
