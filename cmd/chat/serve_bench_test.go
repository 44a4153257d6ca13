package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/session"
)

// The page's speed (make bench): each figure measured in Chromium
// against the built binary.

// seedSession writes a saved session of turns questions and answers for
// dir into home's session store.
func seedSession(b testing.TB, home, dir string, turns int) {
	b.Helper()
	st := session.Store{Dir: filepath.Join(home, ".local", "share", "chat", "sessions")}
	w, err := st.Create(session.Header{Dir: dir, Model: "scripted-model"})
	if err != nil {
		b.Fatal(err)
	}
	s := session.New()
	w.Attach(s)
	for i := range turns {
		s.Append(session.User(fmt.Sprintf("question %d: what does the code in file_%d.go do?", i, i)))
		s.Append(session.Assistant(fmt.Sprintf("It **parses** the input of step %d and writes it out:\n\n```go\nfunc step%d() error { return nil }\n```\n", i, i)))
	}
	if err := w.Sync(s); err != nil {
		b.Fatal(err)
	}
	w.Close()
}

func envOf(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// openSeeded serves a session of turns questions (chat serve -c) and
// returns a browser on it.
func openSeeded(b *testing.B, turns int) (context.Context, *served) {
	srv := oaitest.New(b)
	srv.SetFallback(oaitest.Scripted(0))
	cmd := command(b, srv)
	seedSession(b, envOf(cmd.Env, "HOME"), cmd.Dir, turns)
	s := startServeIn(b, cmd, "-c")
	ctx := chromium(b, 1280, 800)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url), until(`performance.getEntriesByName('chat-history-drawn').length > 0`)); err != nil {
		b.Fatal(err)
	}
	return ctx, s
}

// BenchmarkServeFirstPaint: navigation start to a session page's history
// drawn (a 20-turn session, and a 1,000-turn one), and the page's heap.
func BenchmarkServeFirstPaint(b *testing.B) {
	for _, turns := range []int{20, 1000, 3000} {
		b.Run(fmt.Sprint(turns, "turns"), func(b *testing.B) {
			ctx, _ := openSeeded(b, turns)
			var paints []float64
			var heap float64
			for b.Loop() {
				err := chromedp.Do(ctx, chromedp.Reload(), until(`performance.getEntriesByName('chat-history-drawn').length > 0`))
				if err != nil {
					b.Fatal(err)
				}
				ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.getEntriesByName('chat-history-drawn')[0].startTime`))
				if err != nil {
					b.Fatal(err)
				}
				paints = append(paints, ms)
				heap, _ = chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.memory ? performance.memory.usedJSHeapSize : 0`))
			}
			slices.Sort(paints)
			b.ReportMetric(paints[len(paints)/2], "paint-ms")
			b.ReportMetric(heap/(1<<20), "heap-MiB")
		})
	}
}

// BenchmarkServeEventToDOM: from the model server writing a chunk to its
// text in the page's DOM (an upper bound of the agent's emit to the DOM:
// it includes chat reading the chunk), the median of 40 chunks 60 ms apart.
func BenchmarkServeEventToDOM(b *testing.B) {
	var sent []time.Time
	round := 0
	srv := oaitest.New(b)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		return oaitest.Func(func(w http.ResponseWriter, r *http.Request, _ oaitest.Request) bool {
			w.Header().Set("Content-Type", "text/event-stream")
			sent = sent[:0]
			round++
			for i := range 40 {
				fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" r%03dm%03d\"},\"finish_reason\":null}]}\n\n", round, i)
				w.(http.Flusher).Flush()
				sent = append(sent, time.Now())
				time.Sleep(60 * time.Millisecond)
			}
			fmt.Fprint(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			return true
		})
	})
	s := startServe(b, srv)
	ctx := chromium(b, 1280, 800)
	watch := `window.__seen = {}; new MutationObserver(() => {
		const t = performance.timeOrigin + performance.now();
		for (const m of document.getElementById('log').innerText.matchAll(/r(\d{3})m(\d{3})/g)) if (Number(m[1]) === window.__round && !(m[2] in window.__seen)) window.__seen[m[2]] = t;
	}).observe(document.getElementById('log'), {subtree: true, childList: true, characterData: true}); true`
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input"))); err != nil {
		b.Fatal(err)
	}
	var lat []float64
	rounds := 0
	for b.Loop() {
		rounds++
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf("window.__round = %d; ", rounds)+watch)); err != nil {
			b.Fatal(err)
		}
		if err := chromedp.Do(ctx, send("go", false), until(`Object.keys(window.__seen).length === 40`), until(`document.getElementById('stop').disabled`)); err != nil {
			b.Fatal(err)
		}
		seen, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](`window.__seen`))
		if err != nil {
			b.Fatal(err)
		}
		for i, at := range sent {
			lat = append(lat, seen[fmt.Sprintf("%03d", i)]-float64(at.UnixNano())/1e6)
		}
		if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#input"))); err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(lat[len(lat)/2], "median-ms")
	b.ReportMetric(lat[len(lat)*9/10], "p90-ms")
}

// BenchmarkServeStream20000: a 20,000-chunk answer streamed to the page;
// the longest the page's main thread was held at once (long tasks, which
// Chromium reports from 50 ms).
func BenchmarkServeStream20000(b *testing.B) {
	srv := oaitest.Flood(b, 20000, "word ")
	s := startServe(b, srv)
	ctx := chromium(b, 1280, 800)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input"))); err != nil {
		b.Fatal(err)
	}
	var longest, count float64
	for b.Loop() {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__long = []; new PerformanceObserver(l => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({type: 'longtask'}); true`))
		if err != nil {
			b.Fatal(err)
		}
		if err := chromedp.Do(ctx, send("flood", false), until(`document.querySelector('.md') !== null`), until(`document.getElementById('stop').disabled`), chromedp.Sleep(200*time.Millisecond)); err != nil {
			b.Fatal(err)
		}
		long, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`window.__long`))
		if err != nil {
			b.Fatal(err)
		}
		count += float64(len(long))
		for _, d := range long {
			longest = max(longest, d)
		}
		if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#input"))); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(longest, "longest-task-ms")
	b.ReportMetric(count/float64(b.N), "long-tasks/op")
}
