//go:build !unix

package worktree

func (r Repo) locked(f func() error) error { return f() }
