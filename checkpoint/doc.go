// Package checkpoint records the state of a working directory before the
// agent changes it, and takes it back: content-addressed (identical
// content is stored once), incremental (a file whose size, mtime, inode
// and mode did not change is not read again), without git and without
// touching the project's .git.
//
// A Store holds one session's checkpoints: content by SHA-256 (small
// files in one pack per checkpoint, packs/, larger ones in objects/, as
// file creation is what a first checkpoint of a large tree costs) and
// snaps/ (one small JSON file per checkpoint: what changed since the one
// before). Pruning frees a pack once none of its content is still used. Files that .gitignore excludes, .git itself, and files
// over the size limit are left out (a file over the limit is still
// noticed when it changes, so a rewind can say it cannot restore it).
//
// Restoring is three-way: only paths the agent changed are put back, and
// a path the person changed after the agent did is left alone (listed as
// a conflict) unless forced.
//
// The package must not know about sessions, tools or the terminal: the
// caller says which turn a checkpoint belongs to.
package checkpoint
