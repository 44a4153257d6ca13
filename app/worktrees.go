package app

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

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

// markWorktrees names, for each session made in one of the repository's
// worktrees, which one.
func markWorktrees(ctx context.Context, env Env, cfg config.Config, rows []Listed) {
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
