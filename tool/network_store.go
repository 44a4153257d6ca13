package tool

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/chatrepl/chat/internal/atomicfile"
)

// ProjectHosts keeps the hosts the person allowed "always" for a
// project: a file of chat's own (never in the project, which a command
// could write), folder → hosts.
type ProjectHosts struct {
	Path string // the file: network-allowed.json in chat's state folder
	Root string // the project's folder

	mu sync.Mutex
}

// Hosts are the project's allowed hosts.
func (p *ProjectHosts) Hosts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.read()[p.Root]
}

// Add allows host in the project from now on.
func (p *ProjectHosts) Add(host string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	all := p.read()
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
	all := p.read()
	if !slices.Contains(all[p.Root], host) {
		return false, nil
	}
	all[p.Root] = slices.DeleteFunc(all[p.Root], func(h string) bool { return h == host })
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return false, err
	}
	return true, atomicfile.Write(p.Path, append(b, '\n'), 0o600)
}

func (p *ProjectHosts) read() map[string][]string {
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return nil
	}
	var all map[string][]string
	if json.Unmarshal(b, &all) != nil && !errors.Is(err, os.ErrNotExist) {
		return nil // a torn file allows nothing
	}
	return all
}
