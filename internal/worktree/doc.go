// Package worktree owns chat's linked git worktrees: one per name, on a
// branch chat/NAME, in a folder beside the repository (or the one the
// config names), and what brings their work back: status, diff, merge
// and removal, all through the git command.
//
// It runs outside the box, on trees the box let a model write: git is
// always told the repository's own gitdir and the tree explicitly, never
// left to follow a .git file a command could have rewritten. It must not
// force anything: a merge that conflicts stops with the files named, a
// tree with uncommitted work is removed only when asked to force.
package worktree
