package tool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/chatrepl/chat/tool/netproxy"
	"github.com/chatrepl/chat/tool/sandbox"
)

// Confinement is where run_shell's commands run: in a sandbox box shared
// by the run's shells (started at the first command), or directly. It is
// decided once per run from the config and the kernel; nothing a model
// sends can change it.
type Confinement struct {
	// Wanted is the mode the person chose; Mode is the one in force (Off
	// when the kernel has no Landlock).
	Wanted, Mode sandbox.Mode
	// Unavailable says why there is no box when one was wanted.
	Unavailable string
	Spec        sandbox.Spec
	// Env is every child's environment, secrets removed.
	Env []string

	// Started, when set, hears once what the box in force is, as soon as
	// the first one has started (before its first command runs).
	Started func(description string)
	// Guarded, when set, hears what was undone in the repositories while
	// no command's result could say it (a job's doing).
	Guarded func(note string)
	// Net is the box's way out (nil: no network at all, as before).
	Net *Network
	// Forwarded, when set, hears that a job's server is reached from the
	// host (where).
	Forwarded func(note string)

	mu     sync.Mutex
	git    *gitWatch             // made at the first boxed command
	frozen bool                  // FreezeWriters stopped processes
	plan   bool                  // plan mode is on (SetPlanning)
	tmpDir string                // the box's own /tmp, made at the first start
	said   bool                  // Started was called
	boxes  map[bool]*sandbox.Box // by confined: the box, and the plain one for what leaves it
	// retired are boxes of an earlier mode: what still runs in them
	// finishes there, and Close ends them.
	retired []*sandbox.Box
	notes   string
	engine  sandbox.Engine // of the box in force, once one started
	proxies map[*sandbox.Box]*netproxy.Proxy
}

// NewConfinement settles the mode: a box mode where the kernel has
// Landlock, else Off with the reason in Unavailable.
func NewConfinement(spec sandbox.Spec, env []string) *Confinement {
	c := &Confinement{Wanted: spec.Mode, Mode: spec.Mode, Spec: spec, Env: env}
	if spec.Mode != sandbox.Off {
		if s := sandbox.Probe(); s.ABI == 0 {
			c.Mode, c.Unavailable = sandbox.Off, s.Why
		}
	}
	return c
}

// Boxed reports whether commands run in a box.
func (c *Confinement) Boxed() bool { return c.current() != sandbox.Off }

// ReadOnly reports whether commands run in a box that writes nowhere.
func (c *Confinement) ReadOnly() bool { return c.current() == sandbox.ReadOnly }

func (c *Confinement) current() sandbox.Mode {
	if c == nil {
		return sandbox.Off
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Mode
}

// SetMode moves the run to another box mode (the person chose it: an
// editor's mode switch). Only between box modes: a run without a box
// cannot get one this way, and no mode switch turns it off. Commands
// already running finish in the box they started in.
func (c *Confinement) SetMode(m sandbox.Mode) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.Mode == sandbox.Off:
		return fmt.Errorf("commands do not run in a sandbox in this run (%s)", cmp.Or(c.Unavailable, "it is off"))
	case m == sandbox.Off:
		return errors.New("the sandbox cannot be turned off from here; start chat with --sandbox off")
	case m == c.Mode:
		return nil
	}
	c.Mode, c.Spec.Mode = m, m // Wanted stays: it only tells a box mode from off
	if b := c.boxes[true]; b != nil {
		c.retired = append(c.retired, b)
		delete(c.boxes, true)
	}
	return nil
}

// AsksEveryCommand is the fallback where a box was wanted and the kernel
// cannot make one: every command asks.
func (c *Confinement) AsksEveryCommand() bool { return c != nil && c.Unavailable != "" }

// running returns the box (confined) or the plain one, which confines
// nothing but makes the commands' children die with chat; it starts
// them (again, if one ended).
//
// The protected paths are looked for again at each command: a box made
// before a .git appeared does not cover it, so a new box is started (what
// still runs in the old one finishes there).
func (c *Confinement) running(confined bool) (*sandbox.Box, error) {
	var protected []string
	if confined {
		protected = sandbox.FindProtected(c.Spec.Workdir)
	}
	return c.runningWith(confined, protected)
}

// runningWith is running with the protected paths already found.
func (c *Confinement) runningWith(confined bool, protected []string) (*sandbox.Box, error) {
	c.mu.Lock()
	b, say, err := c.runningLocked(confined, protected)
	c.mu.Unlock()
	if say && c.Started != nil {
		c.Started(c.Headline())
	}
	return b, err
}

func (c *Confinement) runningLocked(confined bool, protected []string) (b *sandbox.Box, say bool, err error) {
	if b := c.boxes[confined]; b != nil && b.Alive() {
		if !confined || slices.Equal(b.Protected(), protected) {
			return b, false, nil
		}
		c.retired = append(c.retired, b)
	}
	spec := c.Spec
	if !confined {
		spec = sandbox.Spec{Mode: sandbox.Off, Workdir: c.Spec.Workdir}
	} else {
		if c.tmpDir == "" {
			// Private to the run: the box's /tmp, where nothing of the
			// person's session (sockets, the editor's file) is.
			if c.tmpDir, err = os.MkdirTemp("", "chat-box-"); err != nil {
				return nil, false, err
			}
		}
		spec.TempDir, spec.Protected, spec.MaxProcs = c.tmpDir, protected, sandbox.ProcessLimit()
	}
	if b, err = sandbox.Start(spec); err != nil {
		return nil, false, err
	}
	if c.boxes == nil {
		c.boxes = map[bool]*sandbox.Box{}
	}
	c.boxes[confined] = b
	if confined {
		c.notes, c.engine = b.Notes(), b.Engine()
		say, c.said = !c.said, true
	}
	return b, say, nil
}

// gitWatch is the run's guard of its repositories.
func (c *Confinement) gitWatch() *gitWatch {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.git == nil {
		c.git = newGitWatch(c)
	}
	return c.git
}

// boxBusy reports whether anything runs in a box of the run.
func (c *Confinement) boxBusy() bool {
	c.mu.Lock()
	boxes := slices.Collect(maps.Values(c.boxes))
	boxes = append(boxes, c.retired...)
	c.mu.Unlock()
	return slices.ContainsFunc(boxes, func(b *sandbox.Box) bool { return b.Busy() })
}

// guardNotes are what the repositories' guard undid that no result said
// yet ("" when nothing).
func (c *Confinement) guardNotes() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	w := c.git
	c.mu.Unlock()
	if w == nil {
		return ""
	}
	return w.take()
}

// Close ends the box and whatever still runs in it.
func (c *Confinement) Close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.git != nil {
		c.git.close()
	}
	for _, p := range c.proxies {
		if p != nil {
			p.Close()
		}
	}
	for _, b := range c.boxes {
		b.Close()
	}
	for _, b := range c.retired {
		b.Close()
	}
	if c.tmpDir != "" {
		_ = os.RemoveAll(c.tmpDir)
	}
}

// State is run_shell's row in /tools.
func (c *Confinement) State(p *Policy) string {
	switch {
	case p != nil && slices.Contains(p.DenyTools, "run_shell"):
		return p.State("run_shell", false)
	case c.Boxed():
		return "runs in the sandbox"
	case c.AsksEveryCommand():
		return "asks (no sandbox)"
	}
	return p.State("run_shell", false)
}

// Headline is the start notice: which box is in force, in one line, and
// where the rest is said (Describe).
func (c *Confinement) Headline() string {
	full := c.Describe()
	head, _, ok := strings.Cut(full, "): ")
	c.mu.Lock()
	weak := c.engine == sandbox.LandlockOnly
	c.mu.Unlock()
	if !ok || !strings.HasPrefix(full, "sandbox ") || weak {
		return full // off, no sandbox, or a weak one: all of it is news
	}
	return head + ") · /sandbox (or chat sandbox) says what it allows"
}

// Describe is one line for /tools and /sandbox: which box is in force
// and what it lets a command do. It starts the box to know: what
// it says is what the kernel gave, never what was asked for.
func (c *Confinement) Describe() string {
	switch {
	case c == nil || c.Wanted == sandbox.Off:
		return "sandbox off: every command is judged by the policy and, where it asks, by you"
	case c.Unavailable != "":
		return "NO SANDBOX: " + c.Unavailable + "; every command asks before it runs (unconfined)"
	}
	c.mu.Lock()
	engine := c.engine
	c.mu.Unlock()
	if engine == "" {
		if _, err := c.running(true); err != nil {
			return "sandbox " + string(c.current()) + ": the box did not start (" + err.Error() + "); commands fail until it does"
		}
	}
	c.mu.Lock()
	notes, mode, engine := c.notes, c.Mode, c.engine
	c.mu.Unlock()
	s := "sandbox " + string(mode) + " (" + engine.Layers() + "): "
	if mode == sandbox.ReadOnly {
		s += "commands run without asking and can write nowhere"
	} else {
		s += "commands run without asking; they write only in the working directory (not .git/, .chat/ or .envrc), their own /tmp"
		if len(c.Spec.Writable) > 0 {
			s += ", " + strings.Join(c.Spec.Writable, ", ")
		}
	}
	s += "; " + c.networkLine() + "; credential folders hidden; no secrets in their environment"
	if engine == sandbox.LandlockOnly {
		s += "; other processes visible, and what a command leaves running in the background may outlive chat"
	}
	if notes != "" {
		s += " (" + notes + ")"
	}
	if engine != sandbox.Bubblewrap && c.Spec.Bwrap == "" {
		s += "; installing bubblewrap (apt install bubblewrap) makes the box stronger where namespaces are restricted"
	}
	return s
}

// secretWords mark an environment variable as a secret by its name.
var secretWords = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"}

// ChildEnv is environ without secrets: every variable whose name holds one
// of secretWords, or whose value is one of the values given (the API key
// under any name), unless keep names it.
func ChildEnv(environ, keep, secretValues []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if !slices.Contains(keep, name) && (secretName(name) || isSecretValue(value, secretValues) || carriesPassword(value)) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func secretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// carriesPassword spots a URL with a password in it, under any name
// (DATABASE_URL, HTTPS_PROXY, a REDIS_URL …): scheme://user:pass@host.
func carriesPassword(v string) bool {
	for _, field := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' || r == ';' }) {
		if u, err := url.Parse(field); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				return true
			}
		}
	}
	return false
}

func isSecretValue(v string, secrets []string) bool {
	for _, s := range secrets {
		if len(s) >= 8 && strings.Contains(v, s) {
			return true
		}
	}
	return false
}

// RunHook runs a hook's command in the box, as commands run (the
// repositories guarded the same way), with its streams apart; what the
// guard undid is said as for a job. For hook.Runner's InBox.
func (c *Confinement) RunHook(ctx context.Context, dir string, env []string, command string, std sandbox.IO) (int, error) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		return 0, err
	}
	code, undone, err := c.guarded(c.Spec.Workdir, "hook", func(box *sandbox.Box) (int, error) {
		env, _, done := c.withProxyEnv(box, env, "hook: "+command)
		defer done()
		// A hook's refusals are events, as a job's are: no result to carry them.
		return box.RunIO(ctx, []string{sh, "-c", command}, env, dir, std, shellWaitDelay)
	})
	c.gitWatch().report(undone)
	return code, err
}

// guarded runs run in the box with the repositories guarded: the
// protected paths under root found first, the watch told as it starts
// and ends; it returns what was undone after it. A box that died before
// it took the run (a run before this one killed it) is started again
// once: nothing ran. what names the run in an error.
func (c *Confinement) guarded(root, what string, run func(*sandbox.Box) (int, error)) (status int, undone []string, err error) {
	protected := sandbox.FindProtected(root)
	watch := c.gitWatch()
	watch.before()
	defer func() { undone = append(sandbox.UndoProtected(root, protected), watch.after()...) }()
	box, err := c.runningWith(true, protected)
	if err != nil {
		return 0, nil, fmt.Errorf("the sandbox could not start, so the %s was not run: %w", what, err)
	}
	status, err = run(box)
	if errors.Is(err, sandbox.ErrBoxGone) {
		if box, err = c.runningWith(true, protected); err != nil {
			return 0, nil, fmt.Errorf("the sandbox could not start again, so the %s was not run: %w", what, err)
		}
		status, err = run(box)
	}
	return status, nil, err
}

// FreezeWriters stops every process of the run that could write: what
// runs in a writable box (a job, what a command left running) and in the
// plain one (what the person let out of the box). Plan mode holds for
// them too; ThawWriters continues them. It says how many it stopped.
func (c *Confinement) FreezeWriters() int {
	n := 0
	for _, b := range c.writers() {
		n += b.Signal(syscall.SIGSTOP)
	}
	c.mu.Lock()
	c.frozen = c.frozen || n > 0
	c.mu.Unlock()
	return n
}

// ThawWriters continues what FreezeWriters stopped.
func (c *Confinement) ThawWriters() int {
	c.mu.Lock()
	frozen := c.frozen
	c.frozen = false
	c.mu.Unlock()
	if !frozen {
		return 0
	}
	n := 0
	for _, b := range c.writers() {
		n += b.Signal(syscall.SIGCONT)
	}
	return n
}

// writers are the boxes whose processes may write: all but a read-only
// box in force.
func (c *Confinement) writers() []*sandbox.Box {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.retired)
	if b := c.boxes[false]; b != nil {
		out = append(out, b)
	}
	if b := c.boxes[true]; b != nil && c.Mode != sandbox.ReadOnly {
		out = append(out, b)
	}
	return out
}

// SetPlanning says plan mode is on (or off): what a refusal in the box
// tells the model depends on it (in plan mode nothing may leave the box).
func (c *Confinement) SetPlanning(on bool) {
	c.mu.Lock()
	c.plan = on
	c.mu.Unlock()
}

// planning reports whether plan mode is on.
func (c *Confinement) planning() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.plan
}

// networkLine says what the box's network is, for Describe.
func (c *Confinement) networkLine() string {
	c.mu.Lock()
	engine := c.engine
	c.mu.Unlock()
	if c.Net == nil || engine == sandbox.LandlockOnly {
		return "no network (TCP, UDP and unix sockets refused)"
	}
	allow, project, session := c.Net.Allowed()
	hosts := append(append(allow, project...), session...)
	if len(hosts) == 0 {
		return "network only through chat's proxy, to hosts you allow (none yet: each asks you; no DNS, no UDP, no unix sockets)"
	}
	return "network only through chat's proxy, to " + strings.Join(hosts, ", ") + " (others ask you; no DNS, no UDP, no unix sockets)"
}
