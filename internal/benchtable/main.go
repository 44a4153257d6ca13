// Command benchtable turns `go test -bench` output (several -count runs)
// into one Markdown table of medians and min–max, printed and written to
// a file with the machine, the Go version and the date.
//
//	go test -bench . -count 5 ./... | go run ./internal/benchtable -o bench/RESULTS.md
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

type key struct{ name, unit string }

func main() {
	out := flag.String("o", "", "also write the report to this file")
	beforeFile := flag.String("before", "", "`go test -bench` output of an earlier build: its medians go in a column of their own")
	flag.Parse()
	values, order := read(os.Stdin)
	var before map[key][]float64
	var beforeNote string
	if *beforeFile != "" {
		data, err := os.ReadFile(*beforeFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		before, _ = read(bytes.NewReader(data))
		// Its first line, when it starts with "# ", says what it is.
		line, _, _ := strings.Cut(string(data), "\n")
		beforeNote = strings.TrimPrefix(line, "# ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\n%s  \n%s, %d CPUs  \n%s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), cpuModel(), runtime.NumCPU(), goVersion())
	b.WriteString("Medians over the runs, with min–max. Produced by `make bench`.")
	if before != nil {
		fmt.Fprintf(&b, " The before column is `%s` (%s), run with the same benchmarks on the same machine.", *beforeFile, beforeNote)
	}
	b.WriteString("\n\n")
	if before != nil {
		b.WriteString("| benchmark | metric | before | median | min – max | runs |\n| --- | --- | ---: | ---: | ---: | ---: |\n")
	} else {
		b.WriteString("| benchmark | metric | median | min – max | runs |\n| --- | --- | ---: | ---: | ---: |\n")
	}
	for _, k := range order {
		v := values[k]
		was := "" // the before cell, with its separator
		if before != nil {
			was = "– | "
			if bv := before[k]; len(bv) > 0 {
				was = num(median(bv)) + " | "
			}
		}
		m := median(v) // sorts v
		fmt.Fprintf(&b, "| %s | %s | %s%s | %s – %s | %d |\n", k.name, k.unit, was, num(m), num(v[0]), num(v[len(v)-1]), len(v))
	}
	summaries(&b, values, before)
	io.WriteString(os.Stdout, b.String())
	if *out != "" {
		if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// read collects the values of `go test -bench` output, by benchmark and
// metric, in the order they first appear.
func read(r io.Reader) (map[key][]float64, []key) {
	values := map[key][]float64{}
	var order []key
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i] // the GOMAXPROCS suffix
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil || (f[i+1] == "ns/op" && v == 0) {
				continue
			}
			k := key{name, f[i+1]}
			if _, seen := values[k]; !seen {
				order = append(order, k)
			}
			values[k] = append(values[k], v)
		}
	}
	return values, order
}

// summaries writes the figures the goals are stated in.
func summaries(b *strings.Builder, values, before map[key][]float64) {
	small, big := values[key{"Delta/fullscreen=false/blocks=10", "ns/op"}], values[key{"Delta/fullscreen=false/blocks=10000", "ns/op"}]
	if len(small) > 0 && len(big) > 0 {
		fmt.Fprintf(b, "\nTUI cost per delta, 10,000 prior blocks / 10 prior blocks: **%.2f** (goal ≤ 1.2)\n", median(big)/median(small))
	}
	if direct := values[key{"ShellTrue/unsandboxed", "ns/op"}]; len(direct) > 0 {
		for _, engine := range []string{"bubblewrap", "namespaces", "landlock"} {
			if boxed := values[key{"ShellTrue/box=" + engine, "ns/op"}]; len(boxed) > 0 {
				fmt.Fprintf(b, "\nA `bash -c true` in the %s box against an unsandboxed one: **%+.2f ms** median extra (goal ≤ 5 ms)\n", engine, (median(boxed)-median(direct))/1e6)
			}
		}
		fmt.Fprintf(b, "\nStarting the box (namespaces), once per run at the first command: %.1f ms\n", median(values[key{"ShellTrue/box-start", "ns/op"}])/1e6)
	}
	if v := values[key{"GitWatchIdle/unchanged", "ns/op"}]; len(v) > 0 {
		fmt.Fprintf(b, "\nThe repositories' watch while something runs in the box (a 10,000-file workspace, a tick every 500 ms): **%.1f ms of CPU a second** when nothing changed; a tick that finds config planted and undoes it %.0f ms\n",
			2*median(v)/1e6, median(values[key{"GitWatchIdle/planted", "ns/op"}])/1e6)
	}
	if v := values[key{"TakeUnchanged", "ns/op"}]; len(v) > 0 {
		fmt.Fprintf(b, "\nCheckpoints: an unchanged 10,000-file tree **%.1f ms** (goal ≤ 30), the first of Go's source tree **%.2f s** (≤ 2), restoring 100 changed files **%.1f ms** (≤ 100)\n",
			median(v)/1e6, median(values[key{"FirstTakeGoSource", "ns/op"}])/1e9, median(values[key{"Restore100", "ns/op"}])/1e6)
	}
	if v := values[key{"EditToDiagnostics", "ms-median"}]; len(v) > 0 {
		fmt.Fprintf(b, "\nDiagnostics: an edit of this repository to gopls's verdict on it, gopls warm, **%.1f ms** median (goal ≤ 500); "+
			"the files a command changed, found on an unchanged 10,000-file tree when a server runs, %.1f ms (≤ 30); with no server a call pays nothing (no hook is wrapped)\n",
			median(v), median(values[key{"SinceLastUnchanged", "ns/op"}])/1e6)
	}
	med := func(name, unit string) float64 {
		if v := values[key{name, unit}]; len(v) > 0 {
			return median(v)
		}
		return 0
	}
	if toReq := med("BinaryHello", "exec-to-request-x-curl"); toReq > 0 {
		fmt.Fprintf(b, "\nStart-up, against curl posting the same request to the same server in the same run: exec to the request reaching the server **%.2f×** (goal ≤ 1.5), "+
			"`chat -p` of a one-line answer, wall **%.2f×** (≤ 1.5); package initialisation **%.1f ms** (≤ 10); the REPL's first frame on a pseudo-terminal **%.1f ms** (≤ 50; a process that only prints the same words takes %.1f ms there)\n",
			toReq, med("BinaryHello", "wall-x-curl"), med("BinaryInit", "init-ms/op"), med("TUI", "first-frame-ms"), med("TUI", "print-baseline-ms"))
	}
	if cpu := med("BinaryStream20000", "cpu-x-curl"); cpu > 0 {
		fmt.Fprintf(b, "\nA 20,000-chunk stream: CPU **%.2f×** curl's in print mode (goal ≤ 1.1), **%.2f×** in the REPL (≤ 1.5; the REPL's figure is the turn alone, curl's includes its start)\n",
			cpu, med("TUI", "cpu-ms-20k-chunks")/med("BinaryStream20000", "curl-cpu-ms/op"))
	}
	if ours, theirs := med("BinaryStream20000", "cpu-ms/op")-med("BinaryHello", "cpu-ms/op"), med("BinaryStream20000", "curl-cpu-ms/op")-med("BinaryHello", "curl-cpu-ms/op"); ours > 0 && theirs > 0 {
		fmt.Fprintf(b, "\nThe chunks alone, print mode (the 20,000-chunk answer's CPU less a one-line answer's, each client's): **%.2f×** curl's; start-up, the one-line answer's CPU: %.2f×\n",
			ours/theirs, med("BinaryHello", "cpu-ms/op")/med("BinaryHello", "curl-cpu-ms/op"))
	}
	if direct := med("HTTPSDownload100MB/direct", "MB/s"); direct > 0 {
		fmt.Fprintf(b, "\nThrough the box's proxy: a 100 MB HTTPS download from a loopback server at **%.0f %%** of the direct rate (goal ≥ 90 %%; raw TCP at %.1f GB/s direct: %.0f %%), a new connection **%+.2f ms** (goal ≤ 2 ms); run_shell in the box with the network wired %+.2f ms\n",
			100*med("HTTPSDownload100MB/proxy", "MB/s")/direct, med("Download100MB/direct", "MB/s")/1000, 100*med("Download100MB/proxy", "MB/s")/med("Download100MB/direct", "MB/s"),
			(med("NewConnection/proxy", "ns/op")-med("NewConnection/direct", "ns/op"))/1e6, (med("BoxedTrue/net=on", "ns/op")-med("BoxedTrue/net=off", "ns/op"))/1e6)
	}
	if v := med("FixedPrompt/window=2048", "fixed-bytes"); v > 0 {
		fmt.Fprintf(b, "\nWhat every request carries before the person says anything (system prompt and tools): **%.0f bytes, ~%.0f tokens, %.0f %% of a 2,048 window** (goal ≤ 40 %%); %.0f bytes from 4,096 up\n",
			v, med("FixedPrompt/window=2048", "fixed-tokens"), med("FixedPrompt/window=2048", "%window"), med("FixedPrompt/window=4096", "fixed-bytes"))
	}
	if v := values[key{"TUI", "idle-cpu-ms-per-s"}]; len(v) > 0 {
		fmt.Fprintf(b, "\nThe REPL waiting for input: **%.1f ms** of CPU a second (a second's window after each 20,000-chunk answer; what is left is the blinking cursor's frames)\n", median(v))
	}
	if v := values[key{"TUILongSession", "rss-MB-turn10"}]; len(v) > 0 {
		b.WriteString("\nA long REPL session (tmux, a tool call every tenth turn, compacted as it grows): turn, RSS, keystroke to frame\n\n")
		for _, turn := range []int{10, 100, 1000, 2500, 5000} {
			rss, lat := values[key{"TUILongSession", fmt.Sprintf("rss-MB-turn%d", turn)}], values[key{"TUILongSession", fmt.Sprintf("key-ms-turn%d", turn)}]
			if len(rss) > 0 && len(lat) > 0 {
				fmt.Fprintf(b, "- turn %d: %.1f MB, %.1f ms%s\n", turn, median(rss), median(lat), was(before, turn))
			}
		}
		if last, first := med("TUILongSession", "key-ms-turn5000"), med("TUILongSession", "key-ms-turn10"); last > 0 && first > 0 {
			fmt.Fprintf(b, "\nAt turn 5,000: RSS **%.1f MB** (goal < 60), keystroke to frame **%.2f×** turn 10's (goal ≤ 1.2; each the median of the keys BenchmarkTUILongSession times through a tmux control client; the before figures polled capture-pane, which timed tmux starting as much as the REPL)\n",
				med("TUILongSession", "rss-MB-turn5000"), last/first)
		}
	}
}

// was is the long session's figures at turn in before, as a note.
func was(before map[key][]float64, turn int) string {
	rss, lat := before[key{"TUILongSession", fmt.Sprintf("rss-MB-turn%d", turn)}], before[key{"TUILongSession", fmt.Sprintf("key-ms-turn%d", turn)}]
	if len(rss) == 0 || len(lat) == 0 {
		return ""
	}
	return fmt.Sprintf(" (before: %.1f MB, %.1f ms)", median(rss), median(lat))
}

// median sorts v and returns its middle.
func median(v []float64) float64 {
	sort.Float64s(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

func num(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "model name") {
				if _, v, ok := strings.Cut(line, ":"); ok {
					return strings.TrimSpace(v)
				}
			}
		}
	}
	return runtime.GOARCH
}

func goVersion() string {
	out, err := exec.Command("go", "version").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(out))
}
