package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/chatrepl/chat/internal/clip"
)

// Loaded is a session read from disk.
type Loaded struct {
	Path     string
	Header   Header
	Messages []Message
	// Rewound are the messages rewinds took out of the conversation.
	Rewound []Message
	// Warnings name what was dropped (a torn last line, a garbled line).
	Warnings []string
}

// Load reads a session file. A partially written last line (a crash, a
// full disk) is dropped with a warning; a garbled line elsewhere is
// skipped with a warning naming it; nothing else is lost. An unknown
// schema version and a message without an id are errors.
func Load(path string) (Loaded, error) {
	l := Loaded{Path: path}
	data, err := os.ReadFile(path)
	if err != nil {
		return l, err
	}
	lines := bytes.Split(data, []byte("\n"))
	torn := len(data) > 0 && data[len(data)-1] != '\n'
	if !torn {
		lines = lines[:len(lines)-1] // the empty piece after the final newline
	}
	if len(lines) == 0 {
		return l, fmt.Errorf("%s: empty session file", path)
	}
	if err := json.Unmarshal(lines[0], &l.Header); err != nil || l.Header.Type != "header" {
		return l, fmt.Errorf("%s: line 1 is not a session header", path)
	}
	if l.Header.SchemaVersion != SchemaVersion {
		return l, fmt.Errorf("%s: schema version %d is not one this chat reads (it reads %d); use a newer chat", path, l.Header.SchemaVersion, SchemaVersion)
	}
	l.Messages = make([]Message, 0, len(lines)-1)
	started := map[string]bool{}
	for i, raw := range lines[1:] {
		n := i + 2
		var st startedLine
		if json.Unmarshal(raw, &st) == nil && st.Type == "started" {
			started[st.CallID] = true
			continue
		}
		var ln line
		if err := json.Unmarshal(raw, &ln); err != nil || ln.Type != lineOf(ln.Message).Type {
			if torn && n == len(lines) {
				l.Warnings = append(l.Warnings, fmt.Sprintf("%s: dropped a partially written last line (%d bytes); everything before it is kept", path, len(raw)))
			} else {
				l.Warnings = append(l.Warnings, fmt.Sprintf("%s line %d: not a message, skipped (%s)", path, n, clip.String(string(raw), 60)))
			}
			continue
		}
		if ln.ID == "" {
			return l, fmt.Errorf("%s line %d: a message without an id; refusing to make one up", path, n)
		}
		if problem := malformed(ln.Message); problem != "" {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s line %d: %s, skipped", path, n, problem))
			continue
		}
		if ln.Rewound {
			l.Rewound = append(l.Rewound, ln.Message)
			continue
		}
		l.Messages = append(l.Messages, ln.Message)
	}
	for i := range l.Messages {
		for j := range l.Messages[i].ToolCalls {
			if c := &l.Messages[i].ToolCalls[j]; started[c.ID] {
				c.Started = true
			}
		}
	}
	return l, nil
}

// malformed names what makes a message unusable in a request.
func malformed(m Message) string {
	switch m.Role {
	case RoleSystem, RoleUser:
	case RoleAssistant:
		seen := map[string]bool{}
		for _, c := range m.ToolCalls {
			if c.ID == "" || c.Name == "" || seen[c.ID] {
				return "a tool call without an id or a name, or repeated"
			}
			seen[c.ID] = true
		}
	case RoleTool:
		if m.ToolCallID == "" {
			return "a tool result that names no call"
		}
	case RoleSummary:
		if strings.TrimSpace(m.Content) == "" {
			return "an empty summary"
		}
	default:
		return fmt.Sprintf("a message with role %q", m.Role)
	}
	return ""
}

// Info describes a stored session for listing.
type Info struct {
	ID       string    `json:"id"`
	Path     string    `json:"path"`
	Dir      string    `json:"cwd"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Title    string    `json:"title"`
	Messages int       `json:"messages"`
	// Model is the model the session started with; Usage adds up what its
	// completions reported.
	Model string `json:"model,omitempty"`
	Usage Usage  `json:"usage"`
}

// List returns the stored sessions, most recently updated first.
func (st Store) List() ([]Info, error) {
	paths, err := filepath.Glob(filepath.Join(st.Dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(paths))
	for _, p := range paths {
		if info, err := readInfo(p); err == nil {
			out = append(out, info)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

// readInfo reads the header, counts the lines and takes the title from
// the first user message, without decoding every message.
func readInfo(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	first, err := r.ReadBytes('\n')
	var h Header
	if err != nil || json.Unmarshal(first, &h) != nil || h.Type != "header" {
		return Info{}, fmt.Errorf("%s: not a session file", path)
	}
	info := Info{ID: h.ID, Path: path, Dir: h.Dir, Created: h.Created, Updated: st.ModTime(), Model: h.Model, Title: h.Title}
	for {
		raw, err := r.ReadBytes('\n')
		if len(raw) > 0 && raw[len(raw)-1] == '\n' && !bytes.HasPrefix(raw, []byte(`{"type":"compaction"`)) {
			info.Messages++
			if info.Title == "" && bytes.Contains(raw, []byte(`"role":"user"`)) {
				var ln line
				if json.Unmarshal(raw, &ln) == nil && ln.Role == RoleUser {
					info.Title = Title(ln.Content)
				}
			}
			if bytes.Contains(raw, []byte(`"usage":{`)) {
				var ln line
				if json.Unmarshal(raw, &ln) == nil && ln.Usage != nil {
					info.Usage = info.Usage.Add(*ln.Usage)
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return info, err
		}
	}
	return info, nil
}

// ShortID is the form of an id that lists show and that --resume takes:
// the first 13 characters (time-ordered ids share their first 8).
func ShortID(id string) string {
	if r := []rune(id); len(r) > 13 {
		return string(r[:13])
	}
	return id
}

// Title is a session's short title, from its first user message.
func Title(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if r := []rune(t); len(r) > 60 {
		t = string(r[:59]) + "…"
	}
	return t
}

// Find returns the session whose id is id or starts with it; an ambiguous
// prefix is an error that lists the candidates.
func (st Store) Find(prefix string) (Info, error) {
	if strings.TrimSpace(prefix) == "" {
		return Info{}, errors.New("no session id given; chat sessions list shows them")
	}
	all, err := st.List()
	if err != nil {
		return Info{}, err
	}
	var match []Info
	for _, s := range all {
		if s.ID == prefix {
			return s, nil
		}
		if strings.HasPrefix(s.ID, prefix) {
			match = append(match, s)
		}
	}
	switch len(match) {
	case 0:
		return Info{}, fmt.Errorf("%w %q in %s; chat sessions list shows them", ErrNoSession, prefix, st.Dir)
	case 1:
		return match[0], nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%q matches %d sessions; give more of the id:", prefix, len(match))
	for _, s := range match {
		fmt.Fprintf(&b, "\n  %s  %s", s.ID, s.Title)
	}
	return Info{}, errors.New(b.String())
}

// Latest is the most recently updated session started in dir.
func (st Store) Latest(dir string) (Info, error) {
	all, err := st.List()
	if err != nil {
		return Info{}, err
	}
	for _, s := range all {
		if s.Dir == dir {
			return s, nil
		}
	}
	return Info{}, fmt.Errorf("%w for %s yet; chat sessions list shows the others", ErrNoSession, dir)
}

// Remove deletes a session file.
func (st Store) Remove(id string) error {
	_ = os.Remove(st.lockPath(id))
	return os.Remove(st.path(id))
}

// AgoText says how long ago something was, for lists of sessions.
func AgoText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
