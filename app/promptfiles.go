package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/internal/project"
	"github.com/chatrepl/chat/internal/promptfile"
	"github.com/chatrepl/chat/internal/xdg"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// PromptFile is a prompt file as a front end lists and runs it.
type PromptFile = promptfile.Command

// PromptFiles are the run's prompt files (read again at each call: one
// added during the session is there at once), those a name found
// earlier left out, and the files that could not be read.
func (r *Run) PromptFiles() (cmds, shadowed []PromptFile, problems []string) {
	return PromptFilesIn(r.spec.Env)
}

// PromptFilesIn are the prompt files of env's working directory (its
// repository's) and of the person.
func PromptFilesIn(env Env) (cmds, shadowed []PromptFile, problems []string) {
	return promptfile.Load(promptfile.Dirs(project.Root(env.Workdir), xdg.Config.Chat(env.Getenv, "commands"), env.Getenv("HOME")))
}

// PromptCommand is the prompt file a line names ("/name args"), unless
// reserved (the front end's own commands) names it.
func (r *Run) PromptCommand(line string, reserved func(name string) bool) (c PromptFile, args string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") || strings.Contains(strings.SplitN(line, "\n", 2)[0], "//") {
		return c, "", false
	}
	name, args, _ := strings.Cut(line[1:], " ")
	if nl := strings.IndexByte(name, '\n'); nl >= 0 {
		name, args = name[:nl], line[1+nl+1:]
	}
	if name == "" || (reserved != nil && reserved(name)) {
		return c, "", false
	}
	cmds, _, _ := r.PromptFiles()
	for _, c := range cmds {
		if c.Name == name {
			return c, strings.TrimSpace(args), true
		}
	}
	return c, "", false
}

// UntrustedError refuses a project's prompt file the person has not
// trusted (as its hooks: the repository wrote it, not they).
type UntrustedError struct{ Command PromptFile }

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("the project's command /%s (%s) is not trusted yet: run it once in the REPL and say yes, or trust the project's commands with chat commands trust",
		e.Command.Name, e.Command.Source+"/"+filepath.Base(e.Command.Path))
}

// ExpandPromptFile is c's prompt with args, or an UntrustedError for a
// project's file not trusted as it is now.
func (r *Run) ExpandPromptFile(c PromptFile, args string) (string, error) {
	if c.Project && !r.PromptFileTrusted(c) {
		return "", &UntrustedError{Command: c}
	}
	return c.Expand(args), nil
}

// promptKey is where the trust file keeps a prompt file's digest.
func promptKey(path string) string { return "command:" + path }

func promptDigest(c PromptFile) string {
	sum := sha256.Sum256(c.Content)
	return hex.EncodeToString(sum[:])
}

// PromptFileTrusted says whether c is the person's, or the project's as
// the person trusted it.
func (r *Run) PromptFileTrusted(c PromptFile) bool { return PromptFileTrusted(r.spec.Env, c) }

// PromptFileTrusted is Run.PromptFileTrusted for env's person.
func PromptFileTrusted(env Env, c PromptFile) bool {
	return !c.Project || trustStore(env.Getenv).read()[promptKey(c.Path)] == promptDigest(c)
}

// TrustPromptFiles trusts cs as they are now (a changed file asks again).
func (r *Run) TrustPromptFiles(cs ...PromptFile) error { return TrustPromptFiles(r.spec.Env, cs...) }

// TrustPromptFiles is Run.TrustPromptFiles for env's person.
func TrustPromptFiles(env Env, cs ...PromptFile) error {
	return trustStore(env.Getenv).update(func(m map[string]string) {
		for _, c := range cs {
			if c.Project {
				m[promptKey(c.Path)] = promptDigest(c)
			}
		}
	})
}

// WritePromptFiles lists the prompt files: each command with its
// arguments, what it does, where it is from and whether it runs (a
// built-in's name, reserved, never runs as it; the project's waits for
// trust).
func WritePromptFiles(w io.Writer, env Env, reserved func(string) bool) {
	cmds, shadowed, problems := PromptFilesIn(env)
	if len(cmds)+len(shadowed)+len(problems) == 0 {
		fmt.Fprintln(w, "no prompt files: put NAME.md in .chat/commands (the project's) or ~/.config/chat/commands (yours); .claude/commands and .gemini/commands are read too")
		return
	}
	tw := table(w, "COMMAND\tFROM\tDESCRIPTION")
	for _, c := range cmds {
		desc := c.Description
		switch {
		case reserved != nil && reserved(c.Name):
			desc = "not run: /" + c.Name + " is built in"
		case !PromptFileTrusted(env, c):
			desc += " (the project's: not trusted yet, chat commands trust)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", listener.VisibleString(strings.TrimSpace("/"+c.Name+" "+c.ArgumentHint)), c.Source, listener.VisibleString(clip.FirstLine(desc)))
	}
	for _, c := range shadowed {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", listener.VisibleString("/"+c.Name), c.Source, "not run: a file of that name comes first")
	}
	_ = tw.Flush()
	for _, p := range problems {
		fmt.Fprintln(w, "left out: "+listener.VisibleString(p))
	}
}

// RunPromptFile is c's prompt with args; a project's file not trusted
// yet is first put to the person through ask (the REPL's approval
// prompt, at idle: yes trusts it as it is), else (ask nil) refused with
// an UntrustedError.
func (r *Run) RunPromptFile(ctx context.Context, ask IdleAsker, c PromptFile, args string) (string, error) {
	text, err := r.ExpandPromptFile(c, args)
	var untrusted *UntrustedError
	if !errors.As(err, &untrusted) || ask == nil {
		return text, err
	}
	req := tool.Request{Tool: "command", NoModel: true, Granted: "✓ trusted /" + c.Name + " as it is",
		Review: tool.Review{NeedsApproval: true,
			Summary: "run this project's command /" + c.Name + " (" + c.Source + "/" + filepath.Base(c.Path) + ")? The repository wrote it; it sends this as your message",
			Detail:  c.Expand(args)}}
	dec, aerr := ask.AskAtIdle(ctx, req, nil)
	if aerr != nil || dec.Verdict == tool.Deny {
		return "", err
	}
	if terr := r.TrustPromptFiles(c); terr != nil {
		return "", terr
	}
	return c.Expand(args), nil
}
