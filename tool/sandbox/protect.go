package sandbox

import (
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/chatrepl/chat/internal/nofollow"
)

// ProtectedNames are what stays read-only wherever it appears under the
// working directory: what is written there runs later, outside any box
// (git's hooks and config, chat's own project settings, direnv's
// .envrc).
var ProtectedNames = []string{".git", ".chat", ".envrc"}

// maxProtectedScan bounds the folders FindProtected reads: past it, the
// rest of a huge tree is not searched (the top levels come first).
const maxProtectedScan = 100_000

// FindProtected lists the protected paths that exist under workdir, at
// any depth, in a stable order. It is cheap enough to run before every
// command: it reads folders only, breadth first, and never enters a
// protected one or follows a link.
func FindProtected(workdir string) []string {
	out := []string{}
	root, err := os.Open(workdir)
	if err != nil {
		return out
	}
	defer root.Close()
	queue := []string{""}
	for scanned := 0; len(queue) > 0 && scanned < maxProtectedScan; scanned++ {
		rel := queue[0]
		queue = queue[1:]
		fd, err := nofollow.OpenDir(int(root.Fd()), rel)
		if err != nil {
			continue // gone, or swapped for a link
		}
		f := os.NewFile(uintptr(fd), rel)
		entries, _ := f.ReadDir(-1)
		f.Close()
		for _, e := range entries {
			name := e.Name()
			switch {
			case slices.Contains(ProtectedNames, name):
				out = append(out, filepath.Join(workdir, rel, name))
			case e.IsDir():
				queue = append(queue, path.Join(rel, name))
			}
		}
	}
	slices.Sort(out)
	return out
}
