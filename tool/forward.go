package tool

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chatrepl/chat/tool/sandbox"
)

// A background job's server is reachable from the person's browser: a
// port the job listens on inside the box (its own network namespace) is
// forwarded to the same port on the host's 127.0.0.1, or to another free
// one when that is taken (and said). Forwarding ends when the job stops
// listening, or ends.

// forwardEvery is how often a running job's listening ports are looked at.
const forwardEvery = 500 * time.Millisecond

type jobKey struct{}

// withJob marks ctx as a job's run: its ports are forwarded.
func withJob(ctx context.Context, j *Job) context.Context { return context.WithValue(ctx, jobKey{}, j) }

func jobOf(ctx context.Context) *Job {
	j, _ := ctx.Value(jobKey{}).(*Job)
	return j
}

// forward is one port forwarded for a job.
type forward struct {
	boxPort int
	host    net.Listener
}

// Forward says where a job's server is reached from the host.
type Forward struct {
	BoxPort int
	Host    string // 127.0.0.1:PORT
}

func (f Forward) String() string {
	s := "http://" + f.Host
	if _, port, _ := net.SplitHostPort(f.Host); port != strconv.Itoa(f.BoxPort) {
		s += " (the box's port " + strconv.Itoa(f.BoxPort) + "; that one was taken here)"
	}
	return s
}

// forwardJobPorts forwards what the command tagged tag listens on in box
// until ctx is done; said hears each new forward.
func forwardJobPorts(ctx context.Context, box *sandbox.Box, tag string, j *Job, said func(string)) {
	open := map[int]*forward{}
	defer func() {
		for _, f := range open {
			f.host.Close()
		}
		j.setForwards(nil)
	}()
	t := time.NewTicker(forwardEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		listening := box.Listening()
		changed := false
		for _, s := range listening {
			if open[s.Local] != nil || box.SocketTag(s.Inode, commandTag) != tag {
				continue
			}
			ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Local)))
			if err != nil {
				if ln, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
					continue
				}
			}
			f := &forward{boxPort: s.Local, host: ln}
			open[s.Local] = f
			changed = true
			go serveForward(ctx, box, f)
			fw := Forward{BoxPort: s.Local, Host: ln.Addr().String()}
			_, _ = fmt.Fprintf(j, "[chat: job %d listens on port %d in the sandbox; open %s on this machine]\n", j.ID, s.Local, fw)
			if said != nil {
				said(fmt.Sprintf("background job %d serves %s (forwarded from the sandbox)", j.ID, fw))
			}
		}
		for port, f := range open {
			if !slices.ContainsFunc(listening, func(s sandbox.Socket) bool { return s.Local == port }) {
				f.host.Close()
				delete(open, port)
				changed = true
			}
		}
		if changed {
			var fws []Forward
			for _, f := range open {
				fws = append(fws, Forward{BoxPort: f.boxPort, Host: f.host.Addr().String()})
			}
			slices.SortFunc(fws, func(a, b Forward) int { return a.BoxPort - b.BoxPort })
			j.setForwards(fws)
		}
	}
}

// serveForward carries each connection to the host's port into the box.
func serveForward(ctx context.Context, box *sandbox.Box, f *forward) {
	for {
		c, err := f.host.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			in, err := box.DialInside(dctx, f.boxPort)
			cancel()
			if err != nil {
				return
			}
			defer in.Close()
			done := make(chan struct{})
			go func() {
				_, _ = io.Copy(in, c)
				closeWrite(in)
				close(done)
			}()
			_, _ = io.Copy(c, in)
			closeWrite(c)
			<-done
		}()
	}
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	}
}

// setForwards records where the job's servers are reached, and says so.
func (j *Job) setForwards(fws []Forward) {
	j.mu.Lock()
	same := slices.Equal(j.forwards, fws)
	j.forwards = fws
	j.mu.Unlock()
	if !same && j.jobs != nil {
		j.jobs.notify(JobEvent{Job: j})
	}
}

// Forwards are where the job's servers are reached from the host.
func (j *Job) Forwards() []Forward {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.forwards)
}

// servesLine is "serves http://127.0.0.1:8000, …" ("" when nothing).
func (j *Job) servesLine() string {
	fws := j.Forwards()
	if len(fws) == 0 {
		return ""
	}
	var parts []string
	for _, f := range fws {
		parts = append(parts, f.String())
	}
	return "serves " + strings.Join(parts, ", ")
}
