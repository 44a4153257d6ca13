package app

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/hook"
	"github.com/chatrepl/chat/internal/atomicfile"
	"github.com/chatrepl/chat/internal/project"
	"github.com/chatrepl/chat/internal/xdg"
	"github.com/chatrepl/chat/tool"
)

// voice is what the project says to the agent in a run: its
// instructions, and the hooks that run (the config's, and the project's
// once trusted).
type voice struct {
	instructions project.Instructions
	hooks        *hook.Runner
	// untrusted are the project's hooks waiting for the person's trust
	// (nil: none, or already trusted).
	untrusted *projectHooks
	// boxed: the hooks run in the sandbox (but those set to "off").
	boxed bool
}

// projectVoice reads the project's instructions (unless turned off) and
// sets up the hooks.
func projectVoice(env Env, cfg config.Config, host *sessionHost) (voice, error) {
	var v voice
	wd := env.Workdir
	if cfg.UsesProjectInstructions() {
		v.instructions = project.Load(wd, xdg.Config.Chat(env.Getenv, "AGENTS.md"))
		if v.instructions.Cut {
			fmt.Fprintf(env.Stderr, "chat: the project's instructions were cut at %d KiB (%s); the rest is left out\n",
				project.MaxInstructions>>10, sourceList(v.instructions.Sources))
		}
	}
	// The project is the repository around wd, for hooks as for AGENTS.md:
	// run from a subfolder, its hooks run (in its root, where the
	// commands' relative paths point).
	root := project.Root(wd)
	runner, err := hook.New(configHooks(cfg.Hooks, "config"), root, ChildEnv(env, cfg))
	if err != nil {
		return v, err
	}
	runner.Session = host.transcript
	runner.Report = func(s string) { fmt.Fprintln(env.Stderr, "chat: "+s) }
	v.hooks = runner
	v.boxed = cfg.Sandbox.Mode != "off"
	ph, err := loadProjectHooks(root)
	if err != nil {
		return v, err
	}
	store := trustStore(env.Getenv)
	known := store.read()
	if ph != nil {
		if store.trusted(ph, known) {
			err = runner.Add(ph.hooks...)
		} else {
			v.untrusted = ph
			if old := store.trustedContent(known[ph.path]); old != "" {
				ph.changed = udiff.Unified("trusted", "now", old, string(ph.content))
			}
		}
	}
	// The scripts a hook names in the working directory are pinned as
	// trusted (the project's), or as first seen, before any command of
	// this run could change them (the config's).
	pins, first := map[string]string{}, map[string]string{}
	for _, h := range runner.List() {
		for _, f := range h.Scripts {
			if d, ok := known[scriptKey(f)]; ok {
				pins[f] = d
			} else if d := hook.Digest(f); d != "" {
				pins[f], first[f] = d, d
			}
		}
	}
	runner.Pin(pins)
	if len(first) > 0 {
		_ = store.pin(first)
	}
	return v, err
}

// sourceList names the files instructions came from, with their sizes.
func sourceList(sources []project.Source) string {
	var names []string
	for _, s := range sources {
		names = append(names, fmt.Sprintf("%s (%d bytes)", s.Path, s.Bytes))
	}
	return strings.Join(names, ", ")
}

// configHooks lists the hooks of a [hooks] table in event order.
func configHooks(h config.Hooks, source string) []hook.Hook {
	var out []hook.Hook
	for _, event := range config.HookEvents {
		for _, c := range h[event] {
			out = append(out, hook.Hook{Event: event, Matcher: c.Matcher, Command: c.Command, Timeout: c.Timeout, Source: source, Unboxed: c.Sandbox == "off"})
		}
	}
	return out
}

// projectHooks is a project's hooks file, as read.
type projectHooks struct {
	path    string
	content []byte
	hooks   []hook.Hook
	// changed is how the file differs from the version last trusted (a
	// unified diff; "" when it was never trusted here).
	changed string
}

// loadProjectHooks reads the project's .chat/hooks.toml (nil when there
// is none).
func loadProjectHooks(root string) (*projectHooks, error) {
	path := filepath.Join(root, config.ProjectHooksFile)
	hooks, content, err := config.LoadHooks(path)
	if err != nil || content == nil {
		return nil, err
	}
	return &projectHooks{path: path, content: content, hooks: configHooks(hooks, path)}, nil
}

// describe is what the person is asked to trust: the file, and each
// command with its event.
func (p *projectHooks) describe() string {
	var b strings.Builder
	for _, h := range p.hooks {
		fmt.Fprintf(&b, "%s", h.Event)
		if h.Matcher != "" {
			fmt.Fprintf(&b, " (%s)", h.Matcher)
		}
		fmt.Fprintf(&b, ": %s\n", h.Command)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (p *projectHooks) digest() string {
	sum := sha256.Sum256(p.content)
	return hex.EncodeToString(sum[:])
}

// trustFile records the project hooks files the person trusted: each
// path with the hash of the content trusted (a changed file asks again).
type trustFile struct{ path string }

func trustStore(getenv func(string) string) trustFile {
	return trustFile{path: xdg.State.Chat(getenv, "trusted-hooks.json")}
}

func (t trustFile) read() map[string]string {
	m := map[string]string{}
	if b, err := os.ReadFile(t.path); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

// trusted says whether p's content, and every script its hooks name, is
// as the person trusted it.
func (t trustFile) trusted(p *projectHooks, known map[string]string) bool {
	if known[p.path] != p.digest() {
		return false
	}
	for f, d := range p.scripts() {
		if d == "" || known[scriptKey(f)] != d {
			return false
		}
	}
	return true
}

// trust records p's content, and its scripts as they are, as trusted;
// the content is kept, to show what changed when it changes.
func (t trustFile) trust(p *projectHooks) error {
	if err := atomicfile.Write(t.contentPath(p.digest()), p.content, 0o600); err != nil {
		return err
	}
	return t.update(func(m map[string]string) {
		m[p.path] = p.digest()
		for f, d := range p.scripts() {
			m[scriptKey(f)] = d
		}
	})
}

// pin records scripts (path → digest) as trusted.
func (t trustFile) pin(digests map[string]string) error {
	return t.update(func(m map[string]string) {
		for f, d := range digests {
			m[scriptKey(f)] = d
		}
	})
}

func (t trustFile) update(change func(map[string]string)) error {
	m := t.read()
	change(m)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(t.path, b, 0o600)
}

// contentPath is where a trusted version of a hooks file is kept.
func (t trustFile) contentPath(digest string) string {
	return filepath.Join(filepath.Dir(t.path), "trusted-hooks", digest+".toml")
}

// trustedContent is the hooks file trusted under digest ("" if not kept).
func (t trustFile) trustedContent(digest string) string {
	if digest == "" || strings.ContainsAny(digest, `/\.`) {
		return ""
	}
	b, _ := os.ReadFile(t.contentPath(digest))
	return string(b)
}

// scriptKey is where the trust file keeps a script's digest.
func scriptKey(path string) string { return "script:" + path }

// scripts are the files in the working directory p's hooks name, with
// their digests now.
func (p *projectHooks) scripts() map[string]string {
	out := map[string]string{}
	for _, h := range p.hooks {
		for _, f := range hook.Scripts(h.Command, filepath.Dir(filepath.Dir(p.path))) {
			out[f] = hook.Digest(f)
		}
	}
	return out
}

// retrust is the REPL's answer to a hook whose script changed since it
// was trusted: the person is asked, and a yes is remembered.
func retrust(getenv func(string) string, a tool.Approver) func(context.Context, hook.Hook, map[string]string) bool {
	return func(ctx context.Context, h hook.Hook, changed map[string]string) bool {
		files := slices.Sorted(maps.Keys(changed))
		req := tool.Request{Tool: "hook", NoModel: true, Granted: "✓ trusted the changed " + strings.Join(files, ", "),
			Review: tool.Review{NeedsApproval: true,
				Summary: "run the " + h.Event + " hook? " + strings.Join(files, ", ") + " changed since you trusted it (a command may have rewritten it); it runs as you" + where(h),
				Detail:  h.Command}}
		dec, err := a.Approve(ctx, req)
		if err != nil || dec.Verdict == tool.Deny {
			return false
		}
		_ = trustStore(getenv).pin(changed)
		return true
	}
}

// where says where a hook runs, for a question about it.
func where(h hook.Hook) string {
	if h.Unboxed {
		return ", outside the sandbox (sandbox = \"off\")"
	}
	return ", in the sandbox"
}

// untrustedNote is what a front end without a prompt says of project
// hooks it does not run.
func untrustedNote(p *projectHooks) string {
	if p.changed != "" {
		return fmt.Sprintf("chat: %s changed since you trusted it; its hooks do not run until you trust it again (chat hooks shows what changed; chat hooks trust)", p.path)
	}
	return fmt.Sprintf("chat: %s has hooks that run commands; they do not run until you trust them (chat hooks trust, after reading them)", p.path)
}

// question is what the person is shown to decide on trusting p.
func (p *projectHooks) question() (summary, detail string) {
	if p.changed != "" {
		return "run this project's hooks? " + config.ProjectHooksFile + " changed since you trusted it; they run as you, in the sandbox unless one says sandbox = \"off\"",
			p.path + " changed since you trusted it:\n" + strings.TrimRight(p.changed, "\n") + "\n\nnow:\n" + p.describe()
	}
	return "run this project's hooks (" + config.ProjectHooksFile + ")? They run as you, in the sandbox unless one says sandbox = \"off\"", p.path + ":\n" + p.describe()
}

// askTrust asks the person, through the REPL's approval prompt, whether
// the project's hooks may run; yes trusts this content from now on.
func askTrust(ctx context.Context, getenv func(string) string, a IdleAsker, v voice) {
	p := v.untrusted
	summary, detail := p.question()
	req := tool.Request{Tool: "project hooks", NoModel: true, Granted: "✓ trusted " + p.path + ": its hooks run from now on (a changed file asks again)",
		Review: tool.Review{NeedsApproval: true, Summary: summary, Detail: detail}}
	// The hooks are added as the person answers, before the REPL reads
	// another key: a prompt typed right after "yes" runs them (added once
	// this goroutine woke, they missed it now and then).
	dec, err := a.AskAtIdle(ctx, req, func(dec tool.Decision) {
		if dec.Verdict != tool.Deny {
			v.hooks.Pin(p.scripts())
			_ = v.hooks.Add(p.hooks...)
		}
	})
	if err != nil || dec.Verdict == tool.Deny {
		return
	}
	if err := trustStore(getenv).trust(p); err != nil && !errors.Is(err, context.Canceled) {
		v.hooks.Report("remembering the trust failed: " + err.Error())
	}
}

// hookList is /hooks and `chat hooks`: every hook with where it comes
// from, and the project's waiting for trust.
func (v voice) hookList() string {
	var b strings.Builder
	for _, h := range v.hooks.List() {
		where := "in the sandbox"
		switch {
		case h.Unboxed:
			where = "OUTSIDE the sandbox (sandbox = \"off\")"
		case !v.boxed:
			where = "outside (no sandbox in this run)"
		}
		fmt.Fprintf(&b, "%-16s %-20s %s  (%s; %s)\n", h.Event, cmp.Or(h.Matcher, "*"), h.Command, h.Source, where)
	}
	if p := v.untrusted; p != nil {
		if p.changed != "" {
			fmt.Fprintf(&b, "%s changed since you trusted it:\n%s\n", p.path, strings.TrimRight(p.changed, "\n"))
		}
		fmt.Fprintf(&b, "not trusted, not run (%s):\n", p.path)
		for _, line := range strings.Split(p.describe(), "\n") {
			b.WriteString("  " + line + "\n")
		}
	}
	if b.Len() == 0 {
		return "no hooks ([[hooks.EVENT]] in the config file or " + config.ProjectHooksFile + "; events: " + strings.Join(config.HookEvents, ", ") + ")"
	}
	return strings.TrimRight(b.String(), "\n")
}

// notifying runs the Notification hooks when an approval starts waiting.
type notifying struct {
	tool.Approver
	hooks *hook.Runner
}

func (n notifying) Approve(ctx context.Context, r tool.Request) (tool.Decision, error) {
	n.hooks.Notify("chat needs your permission to use " + r.Tool + ": " + r.Review.Summary)
	return n.Approver.Approve(ctx, r)
}

// projectFiles names the instructions files for /context.
func projectFiles(in project.Instructions) []string {
	var out []string
	for _, s := range in.Sources {
		out = append(out, s.Path)
	}
	if in.Cut {
		out = append(out, fmt.Sprintf("(cut at %d KiB)", project.MaxInstructions>>10))
	}
	return out
}

// IdleAsker asks the person a question that waits for the screen to be
// idle, and calls onAnswer before the front end reads another key.
type IdleAsker interface {
	AskAtIdle(ctx context.Context, r tool.Request, onAnswer func(tool.Decision)) (tool.Decision, error)
}

// HookNotes sends what the hooks report to report from now on (a front
// end with a screen: as notices).
func (r *Run) HookNotes(report func(string)) { r.voice.hooks.Report = report }

// AskHookTrust makes a front end with a prompt the judge of the project's
// hooks and network file: a file waiting for trust is asked about now, in the
// background (the returned channel closes once it is answered, at once
// when there is nothing to ask), a hook whose script changed is asked
// about when it would run.
func (r *Run) AskHookTrust(ctx context.Context, a interface {
	tool.Approver
	IdleAsker
}) <-chan struct{} {
	r.voice.hooks.Retrust = retrust(r.spec.Env.Getenv, a)
	done := make(chan struct{})
	if r.voice.untrusted == nil && r.untrustedNet == nil {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		if r.voice.untrusted != nil {
			askTrust(ctx, r.spec.Env.Getenv, a, r.voice)
		}
		if r.untrustedNet != nil {
			askNetworkTrust(ctx, r.spec.Env.Getenv, a, r.shell.Net, r.untrustedNet)
		}
	}()
	return done
}

// UntrustedNote is what a front end without a prompt says of project
// hooks it does not run ("" when there are none).
func (r *Run) UntrustedNote() string {
	var notes []string
	if r.voice.untrusted != nil {
		notes = append(notes, untrustedNote(r.voice.untrusted))
	}
	if r.untrustedNet != nil {
		notes = append(notes, r.untrustedNet.note())
	}
	return strings.Join(notes, "\n")
}

// HookList is /hooks.
func (r *Run) HookList() string { return r.voice.hookList() }

// ProjectFiles names the project's instructions files, for /context.
func (r *Run) ProjectFiles() []string { return projectFiles(r.voice.instructions) }

// Hooks is the hooks of env's working directory and the config's, as a
// run would have them: `chat hooks` lists them and trusts the project's.
type Hooks struct {
	getenv func(string) string
	voice  voice
}

// HooksHere reads the config's hooks and the working directory's.
func HooksHere(env Env, cfg config.Config) (*Hooks, error) {
	cfg.ProjectInstructions = new(bool) // only the hooks are wanted
	v, err := projectVoice(env, cfg, &sessionHost{})
	if err != nil {
		return nil, err
	}
	return &Hooks{getenv: env.Getenv, voice: v}, nil
}

// List is every hook with where it comes from, and the project's waiting
// for trust.
func (h *Hooks) List() string { return h.voice.hookList() }

// Trust trusts the scripts of running hooks that changed, and the
// project's hooks file waiting for trust, as they are now; it says what
// it trusted.
func (h *Hooks) Trust() (string, error) {
	var b strings.Builder
	if changed := changedScripts(h.voice.hooks); len(changed) > 0 {
		if err := trustStore(h.getenv).pin(changed); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "trusted the scripts as they are now: %s\n", strings.Join(slices.Sorted(maps.Keys(changed)), ", "))
	} else if h.voice.untrusted == nil {
		return "nothing to trust: no untrusted " + config.ProjectHooksFile + " here, and no hook script changed\n", nil
	}
	if p := h.voice.untrusted; p != nil {
		if err := trustStore(h.getenv).trust(p); err != nil {
			return b.String(), err
		}
		fmt.Fprintf(&b, "trusted %s; these run from now on, as you (in the sandbox unless one says sandbox = \"off\"):\n%s\n", p.path, p.describe())
	}
	return b.String(), nil
}

// changedScripts are the scripts of the running hooks that differ from
// what was trusted, with their digests now.
func changedScripts(r *hook.Runner) map[string]string {
	out := map[string]string{}
	for _, h := range r.List() {
		maps.Copy(out, r.Changed(h))
	}
	return out
}

// PersonShell runs the person's own ! commands: in the working directory,
// with their environment, outside the sandbox (they typed it).
func (r *Run) PersonShell(ctx context.Context, command string, out io.Writer) (int, error) {
	{
		cmd := tool.HostCommand(ctx, r.spec.Env.Workdir, r.spec.Env.Environ(), "bash", "-c", command)
		cmd.Stdout, cmd.Stderr = out, out
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case ctx.Err() != nil:
			return -1, errors.New("stopped")
		case errors.As(err, &exit):
			return exit.ExitCode(), nil
		case err != nil && !errors.Is(err, exec.ErrWaitDelay):
			return -1, err
		}
		return 0, nil
	}
}
