package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/chatrepl/chat/internal/nofollow"
)

// findRepos lists, relative to root and in a stable order, every path
// under it where git finds a repository: each .git (a folder, a file or a
// link) and each folder that is itself a bare repository (HEAD, objects
// and refs). It reads folders only, never follows a link, and does not
// enter what it found. A folder whose metadata did not change since memo
// saw it is not read again (its entries cannot have changed): a watch of
// a large tree costs a stat per folder.
func findRepos(root int, memo map[string]dirMemo) []string {
	var out []string
	queue := []string{""}
	seen := map[string]bool{}
	for scanned := 0; len(queue) > 0 && scanned < maxRepoScan; scanned++ {
		rel := queue[0]
		queue = queue[1:]
		seen[rel] = true
		fd, err := nofollow.OpenDir(root, rel)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			unix.Close(fd)
			continue
		}
		m, ok := memo[rel]
		if stamp := dirStamp(st); !ok || m.stamp != stamp || !m.settled {
			f := os.NewFile(uintptr(fd), rel)
			entries, _ := f.ReadDir(-1)
			f.Close()
			// A folder's times tick at the kernel's clock (a few ms): one
			// changed that recently may change again unseen by them, so it
			// is read again until it has been still for a while.
			changed := time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
			m = dirMemo{stamp: stamp, bare: rel != "" && bareRepo(entries), settled: time.Since(changed) > stillFor}
			for _, e := range entries {
				switch name := e.Name(); {
				case name == ".git":
					m.git = true
				case e.IsDir():
					m.subdirs = append(m.subdirs, name)
				}
			}
			memo[rel] = m
		} else {
			unix.Close(fd)
		}
		if m.bare {
			out = append(out, rel)
			continue
		}
		if m.git {
			out = append(out, path.Join(rel, ".git"))
		}
		for _, d := range m.subdirs {
			queue = append(queue, path.Join(rel, d))
		}
	}
	for rel := range memo {
		if !seen[rel] {
			delete(memo, rel) // gone, or past the bound
		}
	}
	slices.Sort(out)
	return out
}

// stillFor is how long a folder's entries must not have changed before
// its times are trusted to show the next change.
const stillFor = 2 * time.Second

// dirMemo is what findRepos learnt of one folder.
type dirMemo struct {
	stamp   string
	settled bool // its times can be trusted (see stillFor)
	git     bool // it holds a .git
	bare    bool // it is a bare repository
	subdirs []string
}

// dirStamp changes whenever a folder's entries do.
func dirStamp(st unix.Stat_t) string {
	return fmt.Sprintf("%d %d %d.%d %d.%d", st.Dev, st.Ino, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}

// bareRepo says whether a folder's entries make it a repository to git.
func bareRepo(entries []os.DirEntry) bool {
	var head, objects, refs bool
	for _, e := range entries {
		switch e.Name() {
		case "HEAD":
			head = e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0
		case "objects":
			objects = e.IsDir()
		case "refs":
			refs = e.IsDir()
		}
	}
	return head && objects && refs
}

// UndoProtected removes the protected paths (.chat, .envrc, a .git that
// is a link) that are not among before: what is there runs outside any
// box. It says what it removed.
func UndoProtected(workdir string, before []string) []string {
	rootDir, err := os.Open(workdir)
	if err != nil {
		return nil
	}
	defer rootDir.Close()
	var undone []string
	for _, p := range FindProtected(workdir) {
		if (filepath.Base(p) != ".git" || isLink(p)) && !slices.Contains(before, p) {
			if removeUnder(int(rootDir.Fd()), workdir, p) == nil {
				rel, _ := filepath.Rel(workdir, p)
				undone = append(undone, rel)
			}
		}
	}
	return undone
}

// removeUnder removes the protected path p under workdir (a folder with
// what it holds), never through a link.
func removeUnder(root int, workdir, p string) error {
	rel, err := filepath.Rel(workdir, p)
	if err != nil {
		return err
	}
	dir, name, err := nofollow.Parent(root, filepath.ToSlash(rel), false)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	return nofollow.RemoveAll(dir, name)
}

func isLink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}
