package app

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/chatrepl/chat/internal/worktree"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// isolated are the boxes of the sub-agents' worktrees: kept until the run
// ends, since a job a sub-agent started may still run in one.
type isolated struct {
	mu     sync.Mutex
	shells []*tool.Confinement
}

// isolate gives the sub-agent id a git worktree of its own
// (agent.Delegate.Isolate): the run's file and shell tools made again for
// that tree, under the same rules, in a box whose writable root is the
// tree. What it changed is committed to its branch when the task ends.
func (r *Run) isolate(ctx context.Context, id string, tools *tool.Set) (*tool.Set, func(context.Context) string, error) {
	repo, err := Repository(ctx, r.spec.Env, r.cfg)
	if err != nil {
		return nil, nil, err
	}
	name := worktreeName(id)
	t, _, err := repo.Add(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	env := r.spec.Env
	env.Workdir = t.Dir
	builtins, shell, err := builtinTools(env, r.cfg, r.jobs)
	if err != nil {
		_, _ = repo.Remove(ctx, t, true)
		return nil, nil, err
	}
	ls := r.spec.Listeners
	shell.Guarded = func(s string) { ls.Warn(s) }
	shell.Forwarded = func(s string) { ls.Emit(listener.Notice{Text: s}) }
	watchNetwork(shell.Net, ls, r.spec.Approver)
	r.iso.mu.Lock()
	r.iso.shells = append(r.iso.shells, shell)
	r.iso.mu.Unlock()
	out := tools.Copy()
	for _, b := range builtins {
		if _, ok := out.Lookup(b.Name()); ok {
			out.Add(b) // the same tool, on the worktree
		}
	}
	ls.Emit(listener.Notice{Text: fmt.Sprintf("%s works in the worktree %s (branch %s)", id, t.Dir, t.Branch)})
	return out, func(ctx context.Context) string { return r.leftIn(ctx, repo, t, id) }, nil
}

// leftIn commits what the sub-agent left in its worktree and says where
// it is; a worktree it left as it found is removed.
func (r *Run) leftIn(ctx context.Context, repo worktree.Repo, t worktree.Tree, id string) string {
	if _, err := repo.Commit(ctx, t, "chat: the work of sub-agent "+id); err != nil {
		return fmt.Sprintf("[%s worked in the worktree %s (branch %s); committing its work failed: %v]", id, t.Dir, t.Branch, err)
	}
	stat, err := repo.Diff(ctx, t, true)
	if err != nil {
		return fmt.Sprintf("[%s worked in the worktree %s (branch %s): %v]", id, t.Dir, t.Branch, err)
	}
	if strings.TrimSpace(stat) == "" {
		if _, err := repo.Remove(ctx, t, false); err == nil {
			return fmt.Sprintf("[%s changed no file; its worktree is removed]", id)
		}
		return fmt.Sprintf("[%s changed no file (worktree %s)]", id, t.Name)
	}
	return fmt.Sprintf("[%s's changes are committed on the branch %s (worktree %s), not in this working tree:\n%s\nchat worktree diff %s shows them, chat worktree merge %s brings them in]",
		id, t.Branch, t.Dir, strings.TrimRight(stat, "\n"), t.Name, t.Name)
}

func (r *Run) closeIsolated() {
	r.iso.mu.Lock()
	defer r.iso.mu.Unlock()
	for _, s := range r.iso.shells {
		s.Close()
	}
	r.iso.shells = nil
}

var notInName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// worktreeName is a sub-agent's worktree name: its id ("coder 0") and a
// few letters of a fresh UUID, so runs never reuse one.
func worktreeName(id string) string {
	base := strings.Trim(notInName.ReplaceAllString(id, "-"), "-._")
	if base == "" {
		base = "agent"
	}
	u := uuid.Must(uuid.NewV7()).String()
	return fmt.Sprintf("%.40s-%s", base, u[len(u)-6:])
}
