package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/worktree"
	"github.com/chatrepl/chat/session"
)

// Repository is the git repository env's folder is in, with where its
// worktrees go ([worktree] dir); worktree.ErrNotRepository outside one.
func Repository(ctx context.Context, env Env, cfg config.Config) (worktree.Repo, error) {
	base := cfg.Worktree.Dir
	if rest, ok := strings.CutPrefix(base, "~/"); ok {
		base = filepath.Join(env.Getenv("HOME"), rest)
	}
	return worktree.Find(ctx, env.Workdir, base)
}

// EnterWorktree is env moved into the worktree name of its repository,
// made (on a new branch chat/NAME) when it is not there yet. The run then
// has that folder as its working directory: the box's writable root, its
// checkpoints, its sessions, its AGENTS.md and project hooks.
func EnterWorktree(ctx context.Context, env Env, cfg config.Config, name string) (Env, worktree.Tree, bool, error) {
	repo, err := Repository(ctx, env, cfg)
	if err != nil {
		return env, worktree.Tree{}, false, err
	}
	t, created, err := repo.Add(ctx, name)
	if err != nil {
		return env, t, false, err
	}
	env.Workdir = t.Dir
	return env, t, created, nil
}

// WorktreeRow is a worktree as chat worktree list shows it.
type WorktreeRow struct {
	Name    string          `json:"name"`
	Dir     string          `json:"dir"`
	Branch  string          `json:"branch"`
	Changed []string        `json:"changed"`
	Ahead   int             `json:"ahead"`
	Behind  int             `json:"behind"`
	Session *session.Info   `json:"session,omitempty"` // its latest
	State   string          `json:"state"`             // "in use", "idle" or "no session"
	Tree    worktree.Tree   `json:"-"`
	Repo    worktree.Repo   `json:"-"`
	Status  worktree.Status `json:"-"`
}

// Worktrees lists the repository's worktrees with their latest session.
func Worktrees(ctx context.Context, env Env, cfg config.Config) ([]WorktreeRow, error) {
	repo, err := Repository(ctx, env, cfg)
	if err != nil {
		return nil, err
	}
	trees, err := repo.List(ctx)
	if err != nil {
		return nil, err
	}
	st := session.Store{Dir: session.DefaultDir(env.Getenv)}
	rows := []WorktreeRow{}
	for _, t := range trees {
		s, err := repo.Status(ctx, t)
		if err != nil {
			return nil, err
		}
		row := WorktreeRow{Name: t.Name, Dir: t.Dir, Branch: t.Branch, Changed: append([]string{}, s.Changed...),
			Ahead: s.Ahead, Behind: s.Behind, State: "no session", Tree: t, Repo: repo, Status: s}
		if info, err := st.Latest(t.Dir); err == nil {
			row.Session, row.State = &info, "idle"
			if release, err := st.Lock(info.ID); errors.Is(err, session.ErrBusy) {
				row.State = "in use"
			} else if err == nil {
				release()
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// FindWorktree is the repository's worktree called name.
func FindWorktree(ctx context.Context, env Env, cfg config.Config, name string) (worktree.Repo, worktree.Tree, error) {
	repo, err := Repository(ctx, env, cfg)
	if err != nil {
		return repo, worktree.Tree{}, err
	}
	t, ok, err := repo.Get(ctx, name)
	if err == nil && !ok {
		err = &noWorktreeError{name}
	}
	return repo, t, err
}

type noWorktreeError struct{ name string }

func (e *noWorktreeError) Error() string {
	return "no worktree named " + e.name + "; chat worktree list shows them"
}

// MarkWorktrees names, for each session made in one of the repository
// of env's folder's worktrees, which one (chat sessions list; the lists
// of ACP and the page do not show it, and run no git for it).
func MarkWorktrees(ctx context.Context, env Env, cfg config.Config, rows []Listed) {
	if env.Workdir == "" {
		return
	}
	repo, err := Repository(ctx, env, cfg)
	if err != nil {
		return
	}
	trees, err := repo.List(ctx)
	if err != nil {
		return
	}
	for i := range rows {
		for _, t := range trees {
			if rows[i].Dir == t.Dir || strings.HasPrefix(rows[i].Dir, t.Dir+string(filepath.Separator)) {
				rows[i].Worktree = t.Name
			}
		}
	}
}

// WorktreeDiff is what chat worktree diff NAME prints.
func WorktreeDiff(ctx context.Context, env Env, cfg config.Config, name string, stat bool) (string, error) {
	repo, t, err := FindWorktree(ctx, env, cfg, name)
	if err != nil {
		return "", err
	}
	out, err := repo.Diff(ctx, t, stat)
	if err == nil && out == "" {
		out = "the worktree " + t.Name + " changed nothing\n"
	}
	return out, err
}

// WorktreeMerge merges the worktree's branch into the current one (its
// uncommitted work committed first) and says so; a conflict stops it.
func WorktreeMerge(ctx context.Context, env Env, cfg config.Config, name string) (string, error) {
	repo, t, err := FindWorktree(ctx, env, cfg, name)
	if err != nil {
		return "", err
	}
	if err := repo.Merge(ctx, t); err != nil {
		return "", err
	}
	return fmt.Sprintf("merged %s into the current branch; chat worktree rm %s removes the worktree\n", t.Branch, t.Name), nil
}

// WorktreeRemove removes the worktree (refused with uncommitted work
// unless force) and says what became of its branch.
func WorktreeRemove(ctx context.Context, env Env, cfg config.Config, name string, force bool) (string, error) {
	repo, t, err := FindWorktree(ctx, env, cfg, name)
	if err != nil {
		return "", err
	}
	kept, err := repo.Remove(ctx, t, force)
	if err != nil {
		return "", err
	}
	if kept {
		return fmt.Sprintf("removed %s; its branch %s is not merged and is kept (git branch -D %s drops it)\n", t.Dir, t.Branch, t.Branch), nil
	}
	return fmt.Sprintf("removed %s and its branch %s\n", t.Dir, t.Branch), nil
}

// WriteWorktrees is chat worktree list's table.
func WriteWorktrees(w io.Writer, rows []WorktreeRow, now time.Time) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no worktrees yet: chat --worktree NAME (or /worktree NAME) makes one")
		return err
	}
	return Table(w, "NAME\tBRANCH\tAHEAD\tBEHIND\tCHANGED\tSESSION\tSTATE\tDIR", func(row func(...any)) {
		for _, r := range rows {
			changed := "-"
			if n := len(r.Changed); n > 0 {
				changed = fmt.Sprintf("%d: %s", n, strings.Join(r.Changed[:min(n, 3)], ", "))
				if n > 3 {
					changed += ", …"
				}
			}
			sess := "-"
			if r.Session != nil {
				sess = session.ShortID(r.Session.ID) + " " + session.AgoText(now.Sub(r.Session.Updated))
			}
			row(r.Name, r.Branch, r.Ahead, r.Behind, changed, sess, r.State, r.Dir)
		}
	})
}

// Worktree is /worktree in a front end: "" or list, diff NAME, merge
// NAME, rm [--force] NAME say what they did; NAME makes (or finds) that
// worktree and enter is its folder, for the front end to move the
// session there.
func (r *Run) Worktree(ctx context.Context, args string) (report, enter string, err error) {
	env, cfg := r.spec.Env, r.cfg
	if repo, err := Repository(ctx, env, cfg); err == nil {
		env.Workdir = repo.Root // from a worktree, the repository's are listed and merged into the main tree
	}
	f := strings.Fields(args)
	sub := ""
	if len(f) > 0 {
		sub = f[0]
	}
	need := func(n int) error {
		if len(f) != n {
			return fmt.Errorf("/worktree %s NAME", sub)
		}
		return nil
	}
	var b strings.Builder
	switch sub {
	case "", "list":
		rows, err := Worktrees(ctx, env, cfg)
		if err != nil {
			return "", "", err
		}
		err = WriteWorktrees(&b, rows, time.Now())
		return b.String(), "", err
	case "diff":
		if err := need(2); err != nil {
			return "", "", err
		}
		out, err := WorktreeDiff(ctx, env, cfg, f[1], true)
		return out, "", err
	case "merge":
		if err := need(2); err != nil {
			return "", "", err
		}
		out, err := WorktreeMerge(ctx, env, cfg, f[1])
		return out, "", err
	case "rm", "remove":
		force := len(f) == 3 && (f[1] == "--force" || f[1] == "-f")
		if !force {
			if err := need(2); err != nil {
				return "", "", err
			}
		}
		out, err := WorktreeRemove(ctx, env, cfg, f[len(f)-1], force)
		return out, "", err
	}
	if len(f) != 1 {
		return "", "", fmt.Errorf("/worktree NAME, or list, diff NAME, merge NAME, rm [--force] NAME")
	}
	_, t, created, err := EnterWorktree(ctx, env, cfg, f[0])
	if err != nil {
		return "", "", err
	}
	verb := "the worktree"
	if created {
		verb = "made the worktree"
	}
	return fmt.Sprintf("%s %s (branch %s) at %s: the session goes on there", verb, t.Name, t.Branch, t.Dir), t.Dir, nil
}

// ContinueIn says whether dir has a session to continue.
func ContinueIn(env Env, dir string) bool {
	_, err := session.Store{Dir: session.DefaultDir(env.Getenv)}.Latest(dir)
	return err == nil
}

// WorktreeList is the repository's worktrees with their sessions, for a
// front end's list (none outside a repository).
func (r *Run) WorktreeList(ctx context.Context) ([]WorktreeRow, error) {
	env := r.spec.Env
	repo, err := Repository(ctx, env, r.cfg)
	if errors.Is(err, worktree.ErrNotRepository) {
		return []WorktreeRow{}, nil
	} else if err != nil {
		return nil, err
	}
	env.Workdir = repo.Root
	return Worktrees(ctx, env, r.cfg)
}
