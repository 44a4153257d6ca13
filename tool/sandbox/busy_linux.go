package sandbox

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Busy reports whether anything but the box itself runs in it: a
// command, a job, or what one left running in the background. It walks
// the box's process tree from outside (/proc/PID/task/*/children); the
// box's own processes are chat's executable and bubblewrap.
func (b *Box) Busy() bool {
	return b.Alive() && b.pid != 0 && len(b.processes()) > 0
}

// own says whether pid is one of the box's own processes.
func (b *Box) own(pid int) bool {
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return true // gone, or a zombie being reaped
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	return exe == b.self || b.bwrap != "" && exe == b.bwrap
}

// children are the processes pid started that still run.
func children(pid int) []int {
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// Signal sends sig to every process that runs in the box but the box's
// own, and says how many it reached. For SIGSTOP it walks again until no
// running one is left (a process may fork while the walk goes on).
func (b *Box) Signal(sig syscall.Signal) int {
	if !b.Alive() || b.pid == 0 {
		return 0
	}
	hit := map[int]bool{}
	for range 5 {
		fresh := 0
		for _, pid := range b.processes() {
			if !hit[pid] && syscall.Kill(pid, sig) == nil {
				hit[pid] = true
				fresh++
			}
		}
		if fresh == 0 || sig != syscall.SIGSTOP {
			break
		}
	}
	return len(hit)
}

// processes are the box's processes but its own, outside pids.
func (b *Box) processes() []int {
	var out []int
	queue := []int{b.pid}
	for seen := 0; len(queue) > 0 && seen < 100_000; seen++ {
		pid := queue[0]
		queue = queue[1:]
		if pid != b.pid && !b.own(pid) {
			out = append(out, pid)
		}
		queue = append(queue, children(pid)...)
	}
	return out
}
