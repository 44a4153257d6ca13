package tool

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/chatrepl/chat/internal/atomicfile"
)

// ProjectHosts keeps the hosts the person allowed "always" for a
// project: a file of chat's own (never in the project, which a command
// could write), folder → hosts.
type ProjectHosts struct {
	Path string // the file: network-allowed.json in chat's state folder
	Root string // the project's folder

	mu sync.Mutex
	// The file as last read, and its size and time then: a decision per
	// connection reads it again only when it changed.
	cached       map[string][]string
	size         int64
	mtime        time.Time
	cachedExists bool
}

// Hosts are the project's allowed hosts.
func (p *ProjectHosts) Hosts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.read()[p.Root])
}

// Add allows host in the project from now on.
func (p *ProjectHosts) Add(host string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	all := maps.Clone(p.read()) // the cache changes only when the file does
	if all == nil {
		all = map[string][]string{}
	}
	if slices.Contains(all[p.Root], host) {
		return nil
	}
	all[p.Root] = append(all[p.Root], host)
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p.Path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(p.Path, append(b, '\n'), 0o600)
}

// Remove takes host off the project's list; false when it was not there.
func (p *ProjectHosts) Remove(host string) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	all := maps.Clone(p.read())
	if !slices.Contains(all[p.Root], host) {
		return false, nil
	}
	all[p.Root] = slices.DeleteFunc(slices.Clone(all[p.Root]), func(h string) bool { return h == host })
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return false, err
	}
	return true, atomicfile.Write(p.Path, append(b, '\n'), 0o600)
}

func (p *ProjectHosts) read() map[string][]string {
	fi, err := os.Stat(p.Path)
	switch {
	case err != nil:
		p.cached, p.cachedExists = nil, false
		return nil
	case p.cachedExists && fi.Size() == p.size && fi.ModTime().Equal(p.mtime):
		return p.cached
	}
	b, err := os.ReadFile(p.Path)
	var all map[string][]string
	if err != nil || json.Unmarshal(b, &all) != nil {
		all = nil // a torn file allows nothing
	}
	p.cached, p.size, p.mtime, p.cachedExists = all, fi.Size(), fi.ModTime(), true
	return all
}
