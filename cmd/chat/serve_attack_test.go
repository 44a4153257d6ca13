package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
)

// nobody is the other local user of the attacks: uid 65534.
var nobody = &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}

// TestServeOpenKeepsTheLinkFromOtherUsers: chat serve --open hands the
// browser a file only the person can read, never the sign-in link: the
// browser's argv (which every local user reads in /proc) holds no token,
// another user cannot read the file, and the link in it works once. As
// root and as an ordinary user.
func TestServeOpenKeepsTheLinkFromOtherUsers(t *testing.T) {
	t.Parallel()
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			srv := oaitest.New(t, oaitest.Answer{Text: "fine"})
			r := newUserRun(t, u, srv)
			// The browser: a script that says where it is and what it was
			// given, then stays up as a browser does.
			spy := filepath.Join(r.home, "browser")
			seen := filepath.Join(r.home, "browser-saw")
			if err := os.WriteFile(spy, []byte("#!/bin/sh\necho \"$$ $*\" > "+seen+".tmp && mv "+seen+".tmp "+seen+"\nexec sleep 300 \"$@\"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			asuser.Give(t, u, spy)
			cmd := r.command()
			cmd.Env = append(cmd.Env, "BROWSER="+spy)
			s := startServeIn(t, cmd, "--open")
			var saw string
			for deadline := time.Now().Add(runDeadline); saw == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				b, _ := os.ReadFile(seen)
				saw = strings.TrimSpace(string(b))
			}
			pid, arg, _ := strings.Cut(saw, " ")
			cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline")
			if err != nil {
				t.Fatalf("the browser (%q): %v", saw, err)
			}
			if strings.Contains(string(cmdline), "token") || strings.Contains(arg, "token") {
				t.Fatalf("the browser's argv holds the sign-in token: %q", cmdline)
			}
			fu, err := url.Parse(arg)
			if err != nil || fu.Scheme != "file" {
				t.Fatalf("the browser was given %q, not a file", arg)
			}
			fi, err := os.Stat(fu.Path)
			if err != nil {
				t.Fatal(err)
			}
			st := fi.Sys().(*syscall.Stat_t)
			if fi.Mode().Perm() != 0o600 || int(st.Uid) != u.UID {
				t.Errorf("the forwarding file is %v, owned by %d; want 0600, %s's", fi.Mode(), st.Uid, u.Name)
			}
			if os.Getuid() == 0 {
				// Another local user reads the browser's argv and the file.
				steal := exec.Command("sh", "-c", `cat /proc/"$1"/cmdline | tr '\0' ' '; echo; cat "$2"`, "sh", pid, fu.Path)
				steal.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
				out, err := steal.CombinedOutput()
				if err == nil || strings.Contains(string(out), "token=") {
					t.Fatalf("another user read the link (err %v):\n%s", err, out)
				}
			} else {
				t.Log("not root: no other user to try as")
			}
			page, _ := os.ReadFile(fu.Path)
			link := regexp.MustCompile(`url=(http://[^"]+)"`).FindStringSubmatch(string(page))
			if link == nil {
				t.Fatalf("the file does not forward to a link:\n%s", page)
			}
			signIn := strings.ReplaceAll(link[1], "&amp;", "&")
			noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			for i, want := range []int{http.StatusSeeOther, http.StatusUnauthorized} {
				resp, err := noRedirect.Get(signIn)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Errorf("sign-in %d with the file's link: %d, want %d", i+1, resp.StatusCode, want)
				}
			}
			_ = s
		})
	}
}

// TestServeCookieStaysOnItsPort: after the person signed in, a server on
// another port of 127.0.0.1 (another user's) gets no chat_session when
// the same browser opens it, typed or as a link the model wrote; and the
// page's cookie does not open the page from a path of another's choosing.
func TestServeCookieStaysOnItsPort(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path+" "+r.Header.Get("Cookie"))
		mu.Unlock()
		fmt.Fprint(w, "<!doctype html><title>other</title>other")
	}))
	t.Cleanup(other.Close)
	srv := oaitest.New(t, oaitest.Answer{Text: "See [the docs](" + other.URL + "/docs) for more."})
	s := startServe(t, srv)
	ctx := chromium(t, 1280, 800)
	do(t, ctx, "sign in and ask", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")),
		send("where are the docs", false), until(`document.querySelector('.md a') !== null`))
	do(t, ctx, "click the model's link", chromedp.Click(chromedp.CSS(".md a")))
	for _, p := range []string{"/", "/s/"} {
		tctx, cancel := context.WithTimeout(ctx, runDeadline)
		err := chromedp.Do(tctx, chromedp.Navigate(other.URL+p))
		cancel()
		if err != nil {
			t.Fatalf("typing %s: %v", other.URL+p, err)
		}
	}
	// The click opened a tab of its own: its request arrives when it does.
	seen := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
	for deadline := time.Now().Add(runDeadline); !slices.ContainsFunc(seen(), func(g string) bool { return strings.HasPrefix(g, "/docs ") }); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the link's request never reached the other server: %q", seen())
		}
	}
	requests := seen()
	if len(requests) < 3 {
		t.Fatalf("the other server saw %d requests, want at least 3: %q", len(requests), requests)
	}
	for _, g := range requests {
		if strings.Contains(g, "chat_session") {
			t.Errorf("the server on another port got the page's cookie: %s", g)
		}
	}
}
