package main

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGoInstallWorks installs chat the way a person would, with go
// install github.com/chatrepl/chat/cmd/chat@VERSION, from a module proxy
// made of this checkout (the module at a made-up version, its
// dependencies from the module cache): a go.mod with a replace line, or
// a package that needs a file the module zip leaves out, fails here.
func TestGoInstallWorks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds chat from a module zip")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("no git checkout here: %v", err)
	}
	gomodcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	const module, version = "github.com/chatrepl/chat", "v0.0.0-20261126000000-000000000000"
	proxy := t.TempDir()
	dir := filepath.Join(proxy, module, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	zf, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	names := strings.Split(strings.TrimSpace(string(files)), "\n")
	// As the go command's module zip: a folder with a go.mod of its own is
	// another module and is left out.
	var nested []string
	for _, name := range names {
		if strings.HasSuffix(name, "/go.mod") {
			nested = append(nested, strings.TrimSuffix(name, "go.mod"))
		}
	}
	for _, name := range names {
		if slices.ContainsFunc(nested, func(dir string) bool { return strings.HasPrefix(name, dir) }) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue // deleted in the working tree, or not a file
		}
		w, err := zw.Create(module + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, version+".mod"), mod, 0o644)
	os.WriteFile(filepath.Join(dir, version+".info"), []byte(`{"Version":"`+version+`","Time":"2026-11-26T00:00:00Z"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "list"), []byte(version+"\n"), 0o644)

	gobin, cache := t.TempDir(), t.TempDir()
	install := exec.Command("go", "install", module+"/cmd/chat@"+version)
	install.Dir = t.TempDir() // outside any module, as a person would run it
	install.Env = append(os.Environ(),
		"GOBIN="+gobin, "GOMODCACHE="+cache, "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local", "CGO_ENABLED=0",
		"GOPROXY=file://"+proxy+",file://"+filepath.Join(strings.TrimSpace(string(gomodcache)), "cache", "download"),
		"GONOSUMDB="+module, "GONOSUMCHECK=1", "GOSUMDB=off")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/chat@%s: %v\n%s", module, version, err, out)
	}
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(filepath.Join(gobin, "chat"), arg).CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "chat "+version) {
			t.Fatalf("the installed chat %s says %q (%v)", arg, out, err)
		}
	}
}

// TestMakeBuildStampsTheVersion: make build stamps the version and the
// commit from git, as make release does (Go's own VCS stamping may be
// off: GOFLAGS=-buildvcs=false), so chat version never says "devel" in a
// checkout.
func TestMakeBuildStampsTheVersion(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	head, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skip("not a git checkout")
	}
	bin := t.TempDir()
	build := exec.Command("make", "-C", "../..", "build", "BIN="+bin)
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "chat"), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "devel") || !strings.Contains(string(out), strings.TrimSpace(string(head))) {
		t.Fatalf("chat version after make build: %q (HEAD %s)", out, head)
	}
}
