package main

import (
	"fmt"
	"io"
	"os"
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

func reportChild(b *testing.B, cpu, wall time.Duration, rssKB int64) {
	n := float64(b.N)
	b.ReportMetric(float64(cpu.Microseconds())/1000/n, "cpu-ms/op")
	b.ReportMetric(float64(wall.Microseconds())/1000/n, "wall-ms/op")
	b.ReportMetric(float64(rssKB)/1024, "maxrss-MB")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkBinaryStream20000 consumes a 20,000-chunk answer in print mode;
// the server flushes every chunk, as a real local server does.
func BenchmarkBinaryStream20000(b *testing.B) { benchStream(b, 20000) }

// BenchmarkBinaryHello is start-up to exit for a one-line answer.
func BenchmarkBinaryHello(b *testing.B) { benchStream(b, 3) }

func benchStream(b *testing.B, chunks int) {
	srv := oaitest.New(b)
	text := strings.Repeat("tok ", chunks)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: text, Piece: 4} })
	var cpu, wall time.Duration
	var rss int64
	for b.Loop() {
		cmd := command(b, srv, "-p", "go")
		cmd.Stdout = io.Discard
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		peak := watchPeakRSS(cmd.Process.Pid)
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
		st := cmd.ProcessState
		cpu += st.UserTime() + st.SystemTime()
		rss = max(rss, <-peak)
	}
	reportChild(b, cpu, wall, rss)
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
