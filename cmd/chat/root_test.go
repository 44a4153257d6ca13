package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrepl/chat/config"
)

// testDeps is a world for running commands in-process: buffers for the
// output, an environment of its own, a working directory.
func testDeps(t *testing.T, env map[string]string) (deps, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	full := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".local", "share")}
	for k, v := range env {
		full[k] = v
	}
	var out, errOut bytes.Buffer
	wd := t.TempDir()
	return deps{
		stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
		getenv:       func(k string) string { return full[k] },
		stdinIsTTY:   func() bool { return true },
		stdinHasData: func() bool { return false },
		exit:         func(int) {},
		workdir:      func() (string, error) { return wd, nil },
		environ:      func() []string { return nil },
	}, &out, &errOut
}

// TestRootFlags: what a command line becomes, checked without running it.
func TestRootFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args  []string
		check func(o *rootOptions, cfg config.Config) bool
	}{
		{[]string{"-p", "hi"}, func(o *rootOptions, cfg config.Config) bool { return o.prompt == "hi" && cfg.Steps() == 16 }},
		{[]string{"--max-steps", "0", "--yes"}, func(o *rootOptions, cfg config.Config) bool { return cfg.Steps() == 0 && cfg.Yes }},
		{[]string{"--model", "m1", "--base-url", "http://x/v1"}, func(o *rootOptions, cfg config.Config) bool {
			return cfg.Model == "m1" && cfg.BaseURL == "http://x/v1" && cfg.Sources["base_url"] == "flag --base-url"
		}},
		{[]string{"-c", "--no-save", "-f", "a.png", "-f", "b.txt"}, func(o *rootOptions, cfg config.Config) bool {
			return o.cont && o.noSave && strings.Join(o.files, ",") == "a.png,b.txt"
		}},
		{[]string{"--resume", "0196", "--agent", "rev", "--fullscreen"}, func(o *rootOptions, cfg config.Config) bool {
			return o.resume == "0196" && o.agent == "rev" && o.fullscreen
		}},
		{[]string{"--context-window", "4096", "--no-stream"}, func(o *rootOptions, cfg config.Config) bool {
			return cfg.ContextWindow == 4096 && cfg.NoStream
		}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			d, _, _ := testDeps(t, map[string]string{"CHAT_MODEL": "env-model"})
			ran := false
			cmd := newRootCmd(d, func(_ context.Context, _ deps, o *rootOptions, cfg config.Config, _ func(string) bool) error {
				ran = true
				if !tt.check(o, cfg) {
					t.Errorf("options %+v config %+v", o, cfg)
				}
				return nil
			})
			cmd.SetArgs(tt.args)
			if err := cmd.Execute(); err != nil || !ran {
				t.Fatalf("err %v ran %v", err, ran)
			}
		})
	}
}

// TestSubcommandsInProcess runs the commands that need no server through
// the deps seam.
func TestSubcommandsInProcess(t *testing.T) {
	t.Parallel()
	d, out, errOut := testDeps(t, nil)
	exec := func(args ...string) error {
		out.Reset()
		errOut.Reset()
		cmd := newRootCmd(d, nil)
		cmd.SetArgs(args)
		return cmd.Execute()
	}
	if err := exec("version"); err != nil || out.Len() == 0 {
		t.Fatal(err, out)
	}
	if err := exec("config", "path"); err != nil || !strings.HasSuffix(strings.TrimSpace(out.String()), filepath.Join("chat", "config.toml")) {
		t.Fatal(err, out)
	}
	if err := exec("config", "init"); err != nil || !strings.Contains(out.String(), "wrote") {
		t.Fatal(err, out)
	}
	if err := exec("config", "init"); err == nil {
		t.Fatal("config init overwrote the file")
	}
	if err := exec("config", "show"); err != nil || !strings.Contains(out.String(), "max_steps") {
		t.Fatal(err, out, errOut)
	}
	if err := exec("sessions", "list", "--json"); err != nil || strings.TrimSpace(out.String()) != "[]" {
		t.Fatalf("%v %q %q", err, out, errOut)
	}
	if err := exec("agents", "list"); err != nil {
		t.Fatal(err, errOut)
	}
	if err := exec("completion", "bash"); err != nil || !strings.Contains(out.String(), "bash completion") {
		t.Fatal(err)
	}
	if err := exec("--config", filepath.Join(t.TempDir(), "missing.toml"), "-p", "x"); err == nil {
		t.Fatal("a missing --config was accepted")
	}
}

// TestSubcommandFlags: what command lines of rewind, checkpoints, mcp add and acp
// become, checked without running them (their runF seams).
func TestSubcommandFlags(t *testing.T) {
	t.Parallel()
	d, _, _ := testDeps(t, nil)
	var ro rewindOptions
	rewind := func(args ...string) error {
		cmd := newRewindCmd(d, &rootOptions{}, func(got rewindOptions) error { ro = got; return nil })
		cmd.SetArgs(args)
		return cmd.Execute()
	}
	if err := rewind("3", "--files-only", "-r", "0196"); err != nil || ro.Turn != "3" || !ro.FilesOnly || ro.ConvOnly || ro.Resume != "0196" {
		t.Errorf("rewind: %+v %v", ro, err)
	}
	if err := rewind("--conversation-only", "--force"); err != nil || ro.Turn != "" || !ro.ConvOnly || !ro.Force {
		t.Errorf("rewind: %+v %v", ro, err)
	}
	if err := rewind("1", "2"); err == nil {
		t.Error("rewind took two turns")
	}
	var co checkpointsOptions
	cp := newCheckpointsCmd(d, &rootOptions{}, func(got checkpointsOptions) error { co = got; return nil })
	cp.SetArgs([]string{"--resume", "abc"})
	if err := cp.Execute(); err != nil || co.Resume != "abc" {
		t.Errorf("checkpoints: %+v %v", co, err)
	}
	var added config.MCPConfig
	var addedName string
	mcp := newMCPCmd(d, &rootOptions{}, func(name string, m config.MCPConfig) error { addedName, added = name, m; return nil })
	mcp.SetArgs([]string{"add", "files", "--command", "npx", "--arg", "-y", "--arg", "srv", "--env", "TOKEN=${GH}", "--eager", "--allow", "read", "--description", "files"})
	if err := mcp.Execute(); err != nil || addedName != "files" || added.Command != "npx" || strings.Join(added.Args, " ") != "-y srv" ||
		added.Env["TOKEN"] != "${GH}" || !added.Eager || strings.Join(added.Allow, ",") != "read" || added.Description != "files" {
		t.Errorf("mcp add: %q %+v %v", addedName, added, err)
	}
	mcp.SetArgs([]string{"add", "bad", "--env", "NOEQUALS", "--url", "http://x"})
	if err := mcp.Execute(); err == nil || !strings.Contains(err.Error(), "KEY=VALUE") {
		t.Errorf("mcp add with a bad --env: %v", err)
	}
	var acpCfg config.Config
	o := &rootOptions{}
	acp := newACPCmd(d, o, func(_ context.Context, _ deps, _ *rootOptions, cfg config.Config, _ func(string) bool) error {
		acpCfg = cfg
		return nil
	})
	acp.SetArgs([]string{"--model", "m1", "--sandbox", "read-only", "--max-cost", "0.5", "--max-steps", "0", "--agent", "rev"})
	if err := acp.Execute(); err != nil || acpCfg.Model != "m1" || acpCfg.Sandbox.Mode != "read-only" || acpCfg.Budget.MaxCost != 0.5 ||
		acpCfg.Steps() != 0 || o.agent != "rev" {
		t.Errorf("acp: %+v %v", acpCfg, err)
	}
}
