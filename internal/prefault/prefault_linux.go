package prefault

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14, the same number on
// every architecture), which package syscall predates. Importing
// golang.org/x/sys/unix for it would initialise this package sixty
// packages later.
const madvPopulateRead = 22

// The mapping runs beside the rest of initialisation, on the other
// processor if there is one, instead of before it.
func init() { go populate(readOnlyMappings()) }

// span is one mapping of the executable, [start, end).
type span struct{ start, end uintptr }

// readOnlyMappings lists the mappings of the executable's file that are
// not writable (a writable page would be copied when written anyway).
func readOnlyMappings() []span {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return nil
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil
	}
	return parseMaps(string(maps), exe)
}

// parseMaps reads /proc/PID/maps lines ("start-end perms offset dev inode
// path") and keeps exe's mappings without w in their permissions. It
// splits by hand: package strings waits for unicode's tables, which are
// initialised a long way down the list.
func parseMaps(maps, exe string) []span {
	var out []span
	for len(maps) > 0 {
		line := maps
		if i := index(maps, '\n'); i >= 0 {
			line, maps = maps[:i], maps[i+1:]
		} else {
			maps = ""
		}
		var fields [5]string // range, perms, offset, dev, inode; the path is the rest
		for i := range fields {
			fields[i], line = nextField(line)
		}
		path := trimSpace(line)
		if path != exe || len(fields[1]) < 2 || fields[1][0] != 'r' || fields[1][1] == 'w' {
			continue
		}
		dash := index(fields[0], '-')
		if dash < 0 {
			continue
		}
		start, err1 := strconv.ParseUint(fields[0][:dash], 16, 64)
		end, err2 := strconv.ParseUint(fields[0][dash+1:], 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		out = append(out, span{uintptr(start), uintptr(end)})
	}
	return out
}

// nextField cuts the first run of non-blanks off s.
func nextField(s string) (field, rest string) {
	s = trimSpace(s)
	i := 0
	for i < len(s) && s[i] != ' ' && s[i] != '\t' {
		i++
	}
	return s[:i], s[i:]
}

func trimSpace(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

func index(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// populate maps the pages of each span that are in the page cache, a run
// of them at a time; it reads nothing from the disk.
func populate(spans []span) {
	for _, s := range spans {
		runs := residentRuns(s)
		if len(runs) > maxRuns {
			continue // a cold file, read piecemeal: not worth the calls
		}
		for _, r := range runs {
			// EINVAL before Linux 5.14: the pages fault in as before.
			_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, r.start, r.end-r.start, madvPopulateRead)
		}
	}
}

// maxRuns bounds the system calls populate makes for one mapping.
const maxRuns = 64

// residentRuns lists the runs of s's pages that are in the page cache.
func residentRuns(s span) []span {
	page := uintptr(os.Getpagesize())
	vec := make([]byte, (s.end-s.start+page-1)/page)
	if len(vec) == 0 {
		return nil
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, s.start, s.end-s.start, uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		return nil
	}
	var runs []span
	for i := 0; i < len(vec); {
		if vec[i]&1 == 0 {
			i++
			continue
		}
		j := i
		for j < len(vec) && vec[j]&1 == 1 {
			j++
		}
		runs = append(runs, span{s.start + uintptr(i)*page, min(s.start+uintptr(j)*page, s.end)})
		i = j
	}
	return runs
}
