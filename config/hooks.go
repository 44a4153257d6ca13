package config

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/chatrepl/chat/internal/hostpat"
)

// HookEvents are the points of a session a hook may run at (Claude
// Code's names, so existing hook scripts work).
var HookEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact",
	"Stop", "SubagentStop", "SessionEnd", "Notification"}

// Hooks are the [[hooks.EVENT]] tables:
//
//	[[hooks.PreToolUse]]
//	matcher = "run_shell|write_file"   # a regular expression on the tool name ("" or "*": all)
//	command = "./scripts/policy-check" # run with sh -c in the working directory
//	timeout = "10s"                    # default 60s
//	sandbox = "off"                    # run outside the sandbox (default: in it)
type Hooks map[string][]Hook

// Hook is one command at one event.
type Hook struct {
	Matcher string        `toml:"matcher"`
	Command string        `toml:"command"`
	Timeout time.Duration `toml:"timeout"`
	// Sandbox "off" runs the hook outside the box (the person's explicit
	// choice: what it reads in the workspace, a command may have written);
	// "" or "on" runs it in the box, as commands run.
	Sandbox string `toml:"sandbox"`
}

// Check says what is wrong with the hooks, nil when nothing.
func (h Hooks) Check() error {
	for event, list := range h {
		if !slices.Contains(HookEvents, event) {
			return fmt.Errorf("hooks.%s: not an event; use one of %s", event, strings.Join(HookEvents, ", "))
		}
		for i, hk := range list {
			if strings.TrimSpace(hk.Command) == "" {
				return fmt.Errorf("hooks.%s[%d]: command is empty", event, i)
			}
			if hk.Matcher != "" && hk.Matcher != "*" {
				if _, err := regexp.Compile(hk.Matcher); err != nil {
					return fmt.Errorf("hooks.%s[%d]: matcher %q: %v", event, i, hk.Matcher, err)
				}
			}
			if hk.Sandbox != "" && hk.Sandbox != "on" && hk.Sandbox != "off" {
				return fmt.Errorf("hooks.%s[%d]: sandbox %q: use \"on\" (the default) or \"off\"", event, i, hk.Sandbox)
			}
			if hk.Timeout < 0 {
				return fmt.Errorf("hooks.%s[%d]: timeout must be positive", event, i)
			}
		}
	}
	return nil
}

// ProjectHooksFile is where a project keeps its hooks, under its working
// directory: the same [[hooks.EVENT]] tables, run only once the person
// trusts the file's content.
const ProjectHooksFile = ".chat/hooks.toml"

// LoadHooks reads a hooks file ([[hooks.EVENT]] tables and nothing else);
// a missing file is no hooks.
func LoadHooks(path string) (Hooks, []byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var f struct {
		Hooks Hooks `toml:"hooks"`
	}
	md, err := toml.Decode(string(b), &f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, nil, fmt.Errorf("%s: unknown key %q", path, und[0].String())
	}
	if err := f.Hooks.Check(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f.Hooks, b, nil
}

// ProjectNetworkFile is where a project lists the hosts its boxed
// commands need (its registries), under its working directory: allowed
// once the person trusts the file, as a project's hooks are.
//
//	allow_domains = ["registry.npmjs.org", "*.pythonhosted.org"]
//	deny_domains = ["telemetry.example.com"]   # narrows at once, trusted or not
const ProjectNetworkFile = ".chat/network.toml"

// ProjectNetwork is a project's network file.
type ProjectNetwork struct {
	AllowDomains []string `toml:"allow_domains"`
	DenyDomains  []string `toml:"deny_domains"`
}

// LoadProjectNetwork reads path; a missing file is (nil, nil, nil).
func LoadProjectNetwork(path string) (*ProjectNetwork, []byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var n ProjectNetwork
	md, err := toml.Decode(string(b), &n)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return nil, nil, fmt.Errorf("%s: unknown key %s (allow_domains and deny_domains only)", path, un[0])
	}
	for _, p := range append(slices.Clone(n.AllowDomains), n.DenyDomains...) {
		if why := hostpat.Check(p); why != "" {
			return nil, nil, fmt.Errorf("%s: %q: %s", path, p, why)
		}
	}
	return &n, b, nil
}
