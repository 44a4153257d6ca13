package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"
)

// openPty opens a pseudo-terminal of cols×rows: the side a terminal reads
// and the side a program runs on.
func openPty(cols, rows uint16) (terminal, program *os.File, err error) {
	terminal, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(terminal.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		terminal.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		terminal.Close()
		return nil, nil, err
	}
	program, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		terminal.Close()
		return nil, nil, err
	}
	if err := unix.IoctlSetWinsize(int(program.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows}); err != nil {
		terminal.Close()
		program.Close()
		return nil, nil, err
	}
	return terminal, program, nil
}

// backgroundQuery is the terminal's background colour asked (OSC 11).
var backgroundQuery = []byte("\x1b]11;?")

// timeToText starts cmd on a fresh cols×rows pseudo-terminal, answers its
// background query as a dark terminal does, and returns the time from
// starting it to its output showing text (escape sequences left out). The
// process is killed after.
func timeToText(tb testing.TB, cmd *exec.Cmd, text string, cols, rows uint16) time.Duration {
	tb.Helper()
	terminal, program, err := openPty(cols, rows)
	if err != nil {
		tb.Skip("no pseudo-terminal:", err)
	}
	defer terminal.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = program, program, program
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		program.Close()
		tb.Fatal(err)
	}
	program.Close()
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	_ = terminal.SetReadDeadline(start.Add(30 * time.Second))
	var out []byte
	buf := make([]byte, 1<<16)
	for {
		n, err := terminal.Read(buf)
		if err != nil {
			tb.Fatalf("%q never appeared (%v): %q", text, err, out)
		}
		if bytes.Contains(buf[:n], backgroundQuery) {
			_, _ = terminal.WriteString("\x1b]11;rgb:0000/0000/0000\x1b\\")
		}
		out = append(out, buf[:n]...)
		if strings.Contains(ansi.Strip(string(out)), text) {
			return time.Since(start)
		}
	}
}
