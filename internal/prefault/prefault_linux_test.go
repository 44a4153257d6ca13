package prefault

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestParseMapsKeepsTheExecutablesReadOnlyMappings(t *testing.T) {
	maps := `00400000-00d9c000 r-xp 00000000 fd:01 42    /opt/my chat/chat
00d9c000-019a3000 r--p 0099c000 fd:01 42    /opt/my chat/chat
019a3000-01b40000 rw-p 015a3000 fd:01 42    /opt/my chat/chat
01b40000-03d80000 rw-p 00000000 00:00 0
c000000000-c000400000 rw-p 00000000 00:00 0
7f0000000000-7f0000001000 r--p 00000000 fd:01 43    /opt/my chat/chat.so
7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0    [vdso]
zz-yy r-xp 00000000 fd:01 42    /opt/my chat/chat
`
	got := parseMaps(maps, "/opt/my chat/chat")
	want := []span{{0x400000, 0xd9c000}, {0xd9c000, 0x19a3000}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %x, want %x", got, want)
	}
}

func TestTheExecutablesReadOnlyMappingsAreFound(t *testing.T) {
	spans := readOnlyMappings()
	if len(spans) == 0 {
		t.Fatal("found no read-only mapping of the test binary")
	}
	for _, s := range spans {
		if _, size := mappedKB(t, s); size == 0 {
			t.Errorf("mapping %x-%x is empty", s.start, s.end)
		}
	}
}

// The outcome, on a file mapped as the executable is and not yet read: the
// whole of it is mapped after populate, none of it before.
func TestPopulateMapsAResidentFileWhole(t *testing.T) {
	s := mapFile(t, 0, 0)
	if runs := residentRuns(s); len(runs) != 1 || runs[0] != s {
		t.Skip("the file just written is not all in the page cache")
	}
	if rss, _ := mappedKB(t, s); rss != 0 {
		t.Fatalf("%d KB mapped before populate", rss)
	}
	populate([]span{s})
	if rss, kb := mappedKB(t, s); rss != kb {
		t.Fatalf("%d of %d KB mapped after populate", rss, kb)
	}
}

// What is not in the page cache (a cold start, a page never read) is not
// read to be mapped: it faults in when it is used.
func TestPopulateReadsNothingFromTheDisk(t *testing.T) {
	const evicted = 2 << 20 // the second 2 MB (a large folio is at most 2 MB)
	s := mapFile(t, 2<<20, evicted)
	runs := residentRuns(s)
	if len(runs) != 2 || runs[0].end-runs[0].start != 2<<20 {
		t.Skipf("the kernel kept other pages than asked in the page cache: %x", runs)
	}
	populate([]span{s})
	if rss, kb := mappedKB(t, s); rss != kb-evicted>>10 {
		t.Fatalf("%d of %d KB mapped, want all but the %d KB not in the page cache", rss, kb, evicted>>10)
	}

	s = mapFile(t, 0, 8<<20)
	if len(residentRuns(s)) != 0 {
		t.Skip("the kernel kept the file in the page cache")
	}
	populate([]span{s})
	if rss, kb := mappedKB(t, s); rss != 0 {
		t.Fatalf("%d of %d KB of a file not in the page cache mapped (and read)", rss, kb)
	}
}

// mapFile maps a new 8 MB file read-only, as the executable is, after
// dropping size bytes from offset from the page cache.
func mapFile(t *testing.T, offset, size int64) span {
	t.Helper()
	const fileSize = 8 << 20
	f, err := os.Create(filepath.Join(t.TempDir(), "file"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(bytes.Repeat([]byte("chat"), fileSize/4)); err != nil {
		t.Fatal(err)
	}
	if size > 0 {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		if err := unix.Fadvise(int(f.Fd()), offset, size, unix.FADV_DONTNEED); err != nil {
			t.Skip("fadvise:", err)
		}
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, fileSize, syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(data) })
	start := uintptr(unsafe.Pointer(&data[0]))
	return span{start, start + fileSize}
}

// mappedKB reads the Rss and Size of the mapping s in /proc/self/smaps.
func mappedKB(t *testing.T, s span) (rss, size int) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		key, value, isField := strings.Cut(line, ":")
		if !isField || strings.Contains(key, " ") { // a mapping's first line
			in = isMapping(line, s)
			continue
		}
		if !in {
			continue
		}
		kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(value), " kB"))
		switch key {
		case "Rss":
			rss = kb
		case "Size":
			size = kb
		}
	}
	if size == 0 {
		t.Fatalf("no mapping %x-%x in /proc/self/smaps", s.start, s.end)
	}
	return rss, size
}

// isMapping says whether a maps header line is the mapping s.
func isMapping(line string, s span) bool {
	from, to, ok := strings.Cut(strings.Fields(line)[0], "-")
	if !ok {
		return false
	}
	start, err1 := strconv.ParseUint(from, 16, 64)
	end, err2 := strconv.ParseUint(to, 16, 64)
	return err1 == nil && err2 == nil && uintptr(start) == s.start && uintptr(end) == s.end
}
