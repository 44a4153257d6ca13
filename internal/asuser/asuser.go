// Package asuser runs tests as an ordinary user. Our users are not root,
// and the machines that run our tests are: a test of the sandbox, of the
// files chat writes or of the processes it starts that passes as root
// proves little, so it runs again as a user useradd made.
//
// It is for tests only and imports nothing from the project.
package asuser

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Name is the ordinary user the tests run as when they start as root.
const Name = "chat-tester"

// childEnv marks the test binary re-executed as the user.
const childEnv = "CHAT_TEST_AS_USER"

// User is who a test runs as.
type User struct {
	Name     string
	UID, GID int
}

// Root reports whether u is root.
func (u User) Root() bool { return u.UID == 0 }

// Credential is what SysProcAttr needs to start a process as u.
func (u User) Credential() *syscall.Credential {
	return &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID), NoSetGroups: false, Groups: []uint32{}}
}

var (
	once     sync.Once
	ordinary *User
	why      string
)

// Ordinary is an unprivileged user: this process's when it is not root,
// else Name, made with useradd on first use. Without one (no useradd)
// the reason comes back instead.
func Ordinary() (*User, string) {
	once.Do(func() {
		if os.Getuid() != 0 {
			ordinary = &User{Name: os.Getenv("USER"), UID: os.Getuid(), GID: os.Getgid()}
			return
		}
		u, err := user.Lookup(Name)
		if err != nil {
			out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/bin/bash", Name).CombinedOutput()
			if err != nil {
				why = fmt.Sprintf("useradd %s: %v: %s", Name, err, strings.TrimSpace(string(out)))
				return
			}
			if u, err = user.Lookup(Name); err != nil {
				why = err.Error()
				return
			}
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		ordinary = &User{Name: Name, UID: uid, GID: gid}
	})
	return ordinary, why
}

// Current is the user the test process runs as.
func Current() User {
	name := "root"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return User{Name: name, UID: os.Getuid(), GID: os.Getgid()}
}

// Both are the users a test runs as: this process's and, when that is
// root, the ordinary one (when it can be had).
func Both(t *testing.T) []User {
	t.Helper()
	users := []User{Current()}
	if os.Getuid() == 0 {
		if u, why := Ordinary(); u != nil {
			users = append(users, *u)
		} else {
			t.Logf("no ordinary user to run as (%s): root only", why)
		}
	}
	return users
}

// Give makes every path (recursively) u's, so that u can use what the
// test prepared as root.
func Give(t *testing.T, u User, paths ...string) {
	t.Helper()
	if os.Getuid() != 0 {
		return
	}
	for _, p := range paths {
		err := filepath.Walk(p, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, u.UID, u.GID)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Dir is a new folder under a world-traversable parent (t.TempDir's are
// root's, mode 0700), removed after the test; u owns it.
func Dir(t *testing.T, u User) string {
	t.Helper()
	return DirIn(t, "", u)
}

// DirIn is Dir under parent ("" is the temporary directory).
func DirIn(t *testing.T, parent string, u User) string {
	t.Helper()
	d, err := os.MkdirTemp(parent, "chat-as-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	Give(t, u, d)
	return d
}

// Executable copies path where u can run it (a test binary lives in a
// folder only root may enter) and returns the copy's path.
func Executable(t *testing.T, u User, path string) string {
	t.Helper()
	if os.Getuid() != 0 || u.Root() {
		return path
	}
	d := Dir(t, Current())
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(d, filepath.Base(path))
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// InChild reports whether this process is the test binary re-executed
// as the ordinary user by RunTest.
func InChild() bool { return os.Getenv(childEnv) != "" }

// RunTest runs the test t belongs to again, as u, in a copy of the test
// binary, and fails t with its output when it fails. env is added to the
// child's environment.
func RunTest(t *testing.T, u User, env ...string) {
	t.Helper()
	bin := Executable(t, u, os.Args[0])
	cmd := exec.Command(bin, "-test.run=^"+strings.Split(t.Name(), "/")[0]+"$", "-test.v", "-test.count=1")
	dir := Dir(t, u)
	cmd.Dir = dir
	cmd.Env = append([]string{childEnv + "=1", "HOME=" + dir, "TMPDIR=" + dir, "PATH=" + os.Getenv("PATH"), "USER=" + u.Name}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.Credential()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as %s (uid %d): %v\n%s", u.Name, u.UID, err, out)
	}
	if strings.Contains(string(out), "--- SKIP") {
		t.Logf("as %s:\n%s", u.Name, out)
	}
}
