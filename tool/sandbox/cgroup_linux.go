package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// A box's processes and memory are bounded by a cgroup of its own where
// one can be had: beside chat's own cgroup, when this user may make one
// there (root; a desktop session's delegated app.slice under cgroup v2).
// Else RLIMIT_NPROC bounds the processes and memory is not bounded: the
// box's notes say so.

// cgroupSeq tells apart the cgroups of the boxes of one chat.
var cgroupSeq atomic.Int64

// boxCgroup is the cgroup folders (one under cgroup v2, one per
// controller under v1) a box runs in.
type boxCgroup struct{ dirs []string }

// newBoxCgroup makes a cgroup bounded to maxProcs processes and maxMemory
// bytes, or says why it cannot.
func newBoxCgroup(maxProcs, maxMemory uint64) (*boxCgroup, error) {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	mounts, err := cgroupMounts()
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("chat-box-%d-%d", os.Getpid(), cgroupSeq.Add(1))
	cg := &boxCgroup{}
	limits := map[string][2]string{ // controller → v2 file, v1 file
		"pids":   {"pids.max", "pids.max"},
		"memory": {"memory.max", "memory.limit_in_bytes"},
	}
	values := map[string]uint64{"pids": maxProcs, "memory": maxMemory}
	for _, line := range strings.Split(strings.TrimSpace(string(self)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctrl := range controllersOf(parts) {
			mount, ok := mounts[ctrl]
			if !ok || (ctrl == "v2" && len(cg.dirs) > 0) {
				continue
			}
			dir := filepath.Join(mount, filepath.Dir(parts[2]), name)
			removeStale(filepath.Dir(dir))
			if err := os.Mkdir(dir, 0o755); err != nil {
				cg.remove()
				return nil, err
			}
			cg.dirs = append(cg.dirs, dir)
			for c, files := range limits {
				file := files[1]
				if ctrl == "v2" {
					file = files[0]
				} else if ctrl != c {
					continue
				}
				if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatUint(values[c], 10)), 0); err != nil {
					cg.remove()
					return nil, fmt.Errorf("%s: %w", file, err)
				}
			}
		}
	}
	if len(cg.dirs) == 0 {
		return nil, errors.New("no pids and memory controllers")
	}
	return cg, nil
}

// removeStale removes the cgroups of boxes whose chat has ended (one that
// exits right after its box may leave its empty cgroup behind).
func removeStale(parent string) {
	old, _ := filepath.Glob(filepath.Join(parent, "chat-box-*"))
	for _, dir := range old {
		pid, _ := strconv.Atoi(strings.Split(strings.TrimPrefix(filepath.Base(dir), "chat-box-"), "-")[0])
		if pid > 0 && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH {
			os.Remove(dir) // refused while a process is left in it
		}
	}
}

// controllersOf names what a /proc/self/cgroup line is for: "v2", or the
// v1 controllers among pids and memory.
func controllersOf(parts []string) []string {
	if parts[0] == "0" && parts[1] == "" {
		return []string{"v2"}
	}
	var out []string
	for _, c := range strings.Split(parts[1], ",") {
		if c == "pids" || c == "memory" {
			out = append(out, c)
		}
	}
	return out
}

// cgroupMounts finds where the hierarchies are: "v2" for the unified one
// (when it has the pids and memory controllers), else each v1 controller.
func cgroupMounts() (map[string]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+3 >= len(fields) || fields[3] != "/" {
			continue // a bind of part of a hierarchy: not the one our paths are relative to
		}
		mount, fstype, opts := fields[4], fields[sep+1], fields[sep+3]
		switch fstype {
		case "cgroup2":
			if b, err := os.ReadFile(filepath.Join(mount, "cgroup.controllers")); err == nil &&
				strings.Contains(string(b), "pids") && strings.Contains(string(b), "memory") {
				out["v2"] = mount
			}
		case "cgroup":
			for _, o := range strings.Split(opts, ",") {
				if o == "pids" || o == "memory" {
					out[o] = mount
				}
			}
		}
	}
	if _, ok := out["v2"]; ok {
		return map[string]string{"v2": out["v2"]}, nil
	}
	return out, s.Err()
}

// adopt moves pid and every process under it into the cgroup: done once
// the box is up and before it runs anything, so no process escapes.
func (cg *boxCgroup) adopt(pid int) error {
	for _, p := range processTree(pid) {
		for _, dir := range cg.dirs {
			if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(p)), 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// processTree is pid and its descendants.
func processTree(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", out[i]))
		for _, t := range tasks {
			b, _ := os.ReadFile(t)
			for _, f := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(f); err == nil {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// remove deletes the cgroup once its processes are gone (the kernel
// refuses while any is left, so it is tried for a while).
func (cg *boxCgroup) remove() {
	if cg == nil {
		return
	}
	for try := 0; try < 50; try++ {
		left := cg.dirs[:0]
		for _, dir := range cg.dirs {
			if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
				left = append(left, dir)
			}
		}
		if cg.dirs = left; len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// physicalMemory is the machine's memory in bytes (0: unknown).
func physicalMemory() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
