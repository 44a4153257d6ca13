package main

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/chatrepl/chat/internal/oaitest"
)

// TestPagesAreMappedBeforeMostInitialisation: internal/prefault saves the
// faults of what is initialised after it, so it must come early, before
// the packages that wait for unicode's tables (importing strings would
// put it sixty packages later).
func TestPagesAreMappedBeforeMostInitialisation(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(chatBin, "version")
	cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatal(err, string(out))
	}
	order := map[string]int{}
	for i, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order[f[1]] = i + 1
		}
	}
	prefault, ok := order["github.com/chatrepl/chat/internal/prefault"]
	if !ok {
		t.Fatalf("chat does not initialise internal/prefault:\n%s", out)
	}
	if unicode := order["unicode"]; unicode == 0 || prefault > unicode {
		t.Errorf("internal/prefault is initialised %dth, unicode %dth", prefault, unicode)
	}
}

// TestChatMapsItsCodeAtStart: the outcome of internal/prefault in the
// binary people run. While `chat -p` waits for its answer, its code and
// constant data are mapped whole, not just the pages it touched.
func TestChatMapsItsCodeAtStart(t *testing.T) {
	t.Parallel()
	if !fileCached(t, chatBin) {
		t.Skip("the built binary is not all in the page cache")
	}
	gate := oaitest.NewGate()
	srv := oaitest.New(t, oaitest.Answer{Text: "mapped", Gate: gate})
	cmd := command(t, srv, "-p", "hello")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer gate.Release()
	<-gate.Entered()
	var unmapped []string
	for deadline := time.Now().Add(30 * time.Second); ; {
		unmapped = unmappedReadOnly(t, cmd.Process.Pid)
		if len(unmapped) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, u := range unmapped {
		t.Error(u)
	}
}

// unmappedReadOnly lists the read-only mappings of chatBin in process
// pid whose pages are not all mapped.
func unmappedReadOnly(t *testing.T, pid int) []string {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	var head string
	size, seen := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		key, value, isField := strings.Cut(line, ":")
		if !isField || strings.Contains(key, " ") { // a mapping's first line
			head = ""
			if fields := strings.Fields(line); len(fields) >= 6 && fields[5] == chatBin && !strings.Contains(fields[1], "w") {
				head = line
				seen++
			}
			continue
		}
		if head == "" {
			continue
		}
		kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(value), " kB"))
		switch key {
		case "Size":
			size = kb
		case "Rss":
			if kb < size {
				out = append(out, head+": "+strconv.Itoa(kb)+" of "+strconv.Itoa(size)+" KB mapped")
			}
		}
	}
	if seen == 0 {
		t.Fatalf("no read-only mapping of %s in process %d", chatBin, pid)
	}
	return out
}

// fileCached says whether every page of path is in the page cache.
func fileCached(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(data)
	vec := make([]byte, (len(data)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	for _, v := range vec {
		if v&1 == 0 {
			return false
		}
	}
	return true
}
