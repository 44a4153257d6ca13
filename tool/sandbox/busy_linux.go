package sandbox

import (
	"os"
	"strconv"
	"strings"
)

// Busy reports whether anything but the box itself runs in it: a
// command, a job, or what one left running in the background. It walks
// the box's process tree from outside (/proc/PID/task/*/children); the
// box's own processes are chat's executable and bubblewrap.
func (b *Box) Busy() bool {
	if !b.Alive() || b.pid == 0 {
		return false
	}
	queue := []int{b.pid}
	for seen := 0; len(queue) > 0 && seen < 100_000; seen++ {
		pid := queue[0]
		queue = queue[1:]
		if pid != b.pid && !b.own(pid) {
			return true
		}
		queue = append(queue, children(pid)...)
	}
	return false
}

// own says whether pid is one of the box's own processes.
func (b *Box) own(pid int) bool {
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return true // gone, or a zombie being reaped
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	return exe == b.self || b.spec.Bwrap != "" && exe == resolved(b.spec.Bwrap)
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
