package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
)

// userRun is chat run as u (root, or the ordinary user tests make), in a
// home and a working directory of u's, pointed at srv.
type userRun struct {
	t         *testing.T
	u         asuser.User
	bin       string
	home, dir string
	srv       *oaitest.Server
}

func newUserRun(t *testing.T, u asuser.User, srv *oaitest.Server) *userRun {
	t.Helper()
	base := asuser.DirIn(t, "/var/tmp", asuser.Current())
	r := &userRun{t: t, u: u, srv: srv, bin: asuser.Executable(t, u, chatBin),
		home: filepath.Join(base, "home"), dir: filepath.Join(base, "work")}
	for _, d := range []string{r.home, r.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	asuser.Give(t, u, base)
	return r
}

// run runs chat with args as the user.
func (r *userRun) run(args ...string) (stdout, stderr string, code int) {
	r.t.Helper()
	return run(r.t, r.command(args...))
}

// command is chat with args as the user, not started.
func (r *userRun) command(args ...string) *exec.Cmd {
	cmd := exec.Command(r.bin, args...)
	cmd.Dir = r.dir
	cmd.Env = []string{"HOME=" + r.home, "PATH=" + os.Getenv("PATH"), "USER=" + r.u.Name,
		"OPENAI_BASE_URL=" + r.srv.BaseURL(), "CHAT_MODEL=scripted-model", "OPENAI_API_KEY=sk-test-secret"}
	if os.Getuid() != r.u.UID {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.u.Credential()}
	}
	return cmd
}
