package sandbox

import (
	"fmt"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// deniedAlways are the system calls no command in a box needs and an
// escape would: tracing other processes, mounting, new namespaces, the
// kernel's keyrings, BPF, perf, io_uring (which bypasses this filter),
// loading modules, reading other processes' memory.
var deniedAlways = []string{
	"ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root", "chroot",
	"fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
	"unshare", "setns", "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register", "open_by_handle_at", "name_to_handle_at",
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon",
	"swapoff", "syslog", "acct", "quotactl", "iopl", "ioperm", "lookup_dcookie", "uselib",
}

// Namespaces a clone may not make (the box's own are made before the
// filter); CLONE_NEWNS and the rest.
const newNamespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME

// policy is the box's filter. A private network namespace leaves sockets
// to the kernel's routing (nothing leaves it); without one, no socket can
// be made at all (UDP and DNS included). Unix sockets are never made:
// those on disk reach the person's tmux, ssh-agent, session bus.
func policy(netClosedByNamespace bool) seccomp.Policy {
	// A 32-bit int argument travels in a 64-bit register: a value with high
	// bits set is the same call to the kernel and another value to a
	// filter that compares 64 bits, so such values are refused outright.
	high := seccomp.Condition{Argument: 0, Operation: seccomp.GreaterThan, Value: 0xFFFFFFFF}
	var conditioned []seccomp.NameWithConditions
	if netClosedByNamespace {
		conditioned = append(conditioned,
			seccomp.NameWithConditions{Name: "socket", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: unix.AF_UNIX}}},
			seccomp.NameWithConditions{Name: "socket", Conditions: seccomp.ArgumentConditions{high}})
	}
	ioctlHigh := high
	ioctlHigh.Argument = 1
	conditioned = append(conditioned,
		// Typing into a terminal, and the console's paste buffer.
		seccomp.NameWithConditions{Name: "ioctl", Conditions: seccomp.ArgumentConditions{{Argument: 1, Operation: seccomp.Equal, Value: unix.TIOCSTI}}},
		seccomp.NameWithConditions{Name: "ioctl", Conditions: seccomp.ArgumentConditions{{Argument: 1, Operation: seccomp.Equal, Value: unix.TIOCLINUX}}},
		seccomp.NameWithConditions{Name: "ioctl", Conditions: seccomp.ArgumentConditions{ioctlHigh}},
		seccomp.NameWithConditions{Name: "clone", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: newNamespaceFlags}}},
		// Device nodes (S_IFCHR and S_IFBLK share this bit; S_IFLNK is refused by mknod anyway).
		seccomp.NameWithConditions{Name: "mknod", Conditions: seccomp.ArgumentConditions{{Argument: 1, Operation: seccomp.BitsSet, Value: unix.S_IFCHR}}},
		seccomp.NameWithConditions{Name: "mknodat", Conditions: seccomp.ArgumentConditions{{Argument: 2, Operation: seccomp.BitsSet, Value: unix.S_IFCHR}}},
	)
	denied := deniedAlways
	if !netClosedByNamespace {
		denied = append(denied[:len(denied):len(denied)], "socket")
	}
	info, _ := arch.GetInfo("")
	known := func(name string) bool {
		if info == nil {
			return false
		}
		_, ok := info.SyscallNames[name]
		return ok
	}
	var names []string
	for _, n := range denied {
		if known(n) {
			names = append(names, n)
		}
	}
	var withArgs []seccomp.NameWithConditions
	for _, c := range conditioned {
		if known(c.Name) {
			withArgs = append(withArgs, c)
		}
	}
	groups := []seccomp.SyscallGroup{{Names: names, NamesWithCondtions: withArgs, Action: seccomp.ActionErrno | seccomp.Action(unix.EPERM)}}
	if known("clone3") {
		// clone3's flags are behind a pointer no filter can read: libc falls
		// back to clone on ENOSYS, which is checked above.
		groups = append(groups, seccomp.SyscallGroup{Names: []string{"clone3"}, Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)})
	}
	return seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups}
}

// loadFilter installs the filter on every thread of the box (children
// inherit it). System calls of another architecture (the 32-bit ABI of
// x86-64) would pass the library's filter untouched: they are refused
// first.
func loadFilter(netClosedByNamespace bool) error {
	p := policy(netClosedByNamespace)
	body, err := p.Assemble()
	if err != nil {
		return err
	}
	info, err := arch.GetInfo("")
	if err != nil {
		return err
	}
	prog := append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(unix.ENOSYS)},
	}, body...)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}
