package tool

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"

	"github.com/chatrepl/chat/tool/sandbox"
)

// RunServer runs a language server (argv[0] an absolute path) in dir
// where commands run: in the box, with the children's environment and no
// network at all (no proxy is handed to it: a server has no business
// downloading), its repositories guarded as a job's are; directly, in a
// process group that dies with chat, when there is no box. It returns
// when the server has ended; cancelling ctx ends it.
func (c *Confinement) RunServer(ctx context.Context, argv []string, dir string, stdin io.Reader, stdout, stderr io.Writer) error {
	if !c.Boxed() {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, c.Env, stdin, stdout, stderr
		cmd.SysProcAttr = groupDyingWithChat()
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = time.Second
		return cmd.Run()
	}
	status, undone, err := c.guarded(c.Spec.Workdir, "language server", func(box *sandbox.Box) (int, error) {
		return box.RunIO(ctx, argv, c.Env, dir, sandbox.IO{Stdin: stdin, Stdout: stdout, Stderr: stderr}, time.Second)
	})
	c.gitWatch().report(undone)
	if err == nil && status != 0 {
		err = fmt.Errorf("exit status %d", status)
	}
	return err
}
