package tui

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/sahilm/fuzzy"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/session"
)

// @ mentions: typing @ offers the paths under the working directory
// (fuzzy); on send, each mentioned file goes with the message as an
// attachment.

// mentionRows is how many matches the list shows.
const mentionRows = 8

// mentions is the completion list's state.
type mentions struct {
	files   []string // the index, shallow paths first; nil until loaded
	loading bool     // the whole tree is being listed (files may hold the top level)
	matches []string
	sel     int
	// dismissed is the token Esc closed the list for: it stays closed
	// until the token changes.
	dismissed string
	loadedAt  time.Time
	titles    map[string]string // an MCP resource's title, by SERVER:URI
}

// mentionStale is how old the index may be when a new @ starts: older,
// it is listed again (the old one shows meanwhile).
const mentionStale = 10 * time.Second

type filesMsg struct {
	files   []string
	err     error
	shallow bool // the top level only, while the whole tree is listed
}

type mentionedMsg struct {
	text    string
	parts   []session.FilePart
	outside []string // files outside the working directory
	asking  []string // resources of servers that are asked before they are read
	errs    []string
}

// mentionToken is the @word being typed at the end of the input, without
// the @ ("" and false when none).
func mentionToken(v string) (string, bool) {
	i := strings.LastIndexAny(v, " \t\n")
	tok := v[i+1:]
	if !strings.HasPrefix(tok, "@") {
		return "", false
	}
	return tok[1:], true
}

// refreshMentions updates the list after the input changed; the first @
// loads the index (IO, in a command).
func (m *Model) refreshMentions() tea.Cmd {
	mn := &m.mention
	tok, ok := mentionToken(m.input.value())
	if !ok || m.app.Workdir() == "" || "@"+tok == mn.dismissed || isCommandLine(m.input.value()) || isBangLine(m.input.value()) {
		mn.matches = nil
		if !ok {
			mn.dismissed = ""
		}
		return nil
	}
	var load tea.Cmd
	if tok == "" && mn.files != nil && !mn.loading && m.now().Sub(mn.loadedAt) > mentionStale {
		mn.loading = true
		files := m.app.Files
		load = func() tea.Msg {
			f, err := files(0)
			return filesMsg{files: f, err: err}
		}
	}
	if mn.files == nil && !mn.loading {
		// The top level shows at once; the whole tree follows.
		mn.loading = true
		files := m.app.Files
		load = tea.Batch(func() tea.Msg {
			f, err := files(1)
			return filesMsg{files: f, err: err, shallow: true}
		}, func() tea.Msg {
			f, err := files(0)
			return filesMsg{files: f, err: err}
		})
	}
	resources, titles := resourceMentions(m.app.MCP())
	mn.titles = titles
	candidates := mn.files
	if len(resources) > 0 { // after the files: a bare @ shows the folder first
		candidates = slices.Concat(mn.files, resources)
	}
	mn.matches = matchFiles(candidates, tok, mentionRows)
	load = tea.Batch(load, m.connectForCompletion(tok))
	mn.sel = min(mn.sel, max(len(mn.matches)-1, 0))
	return load
}

// matchFiles is the best n paths for query: without one, the shallowest.
func matchFiles(files []string, query string, n int) []string {
	if query == "" {
		return files[:min(n, len(files))]
	}
	var out []string
	for _, match := range fuzzy.Find(query, files) {
		out = append(out, match.Str)
		if len(out) == n {
			break
		}
	}
	return out
}

// indexFiles orders the index: shallow paths first, then by name.
func indexFiles(files []string) []string {
	slices.SortStableFunc(files, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(strings.TrimSuffix(a, "/"), "/"), strings.Count(strings.TrimSuffix(b, "/"), "/")), cmp.Compare(a, b))
	})
	return files
}

func (m *Model) onFiles(msg filesMsg) tea.Cmd {
	if msg.shallow {
		if m.mention.loading && msg.err == nil { // not after the whole tree
			m.mention.files = indexFiles(msg.files)
		}
		return m.refreshMentions()
	}
	m.mention.loading = false
	if msg.err != nil {
		m.notice = "listing the files for @ failed: " + msg.err.Error()
		m.mention.files = []string{}
		return nil
	}
	m.mention.files, m.mention.loadedAt = indexFiles(msg.files), m.now()
	return m.refreshMentions()
}

// mentionKey handles a key while the list is open; false leaves it to
// the input.
func (m *Model) mentionKey(key string) bool {
	mn := &m.mention
	if len(mn.matches) == 0 {
		return false
	}
	switch key {
	case "up":
		mn.sel = (mn.sel + len(mn.matches) - 1) % len(mn.matches)
	case "down":
		mn.sel = (mn.sel + 1) % len(mn.matches)
	case "tab", "enter":
		v := m.input.value()
		tok, _ := mentionToken(v)
		choice := mn.matches[mn.sel]
		if key == "enter" && tok == choice {
			return false // already complete: enter sends
		}
		rest := " "
		if strings.HasSuffix(choice, "/") {
			rest = "" // a folder: go on typing inside it
		}
		m.input.set(v[:len(v)-len(tok)] + choice + rest)
		mn.matches, mn.sel = nil, 0
		m.refreshMentions()
	case "esc":
		tok, _ := mentionToken(m.input.value())
		mn.dismissed, mn.matches = "@"+tok, nil
	default:
		return false
	}
	return true
}

// view is the list under the input, which holds typed.
func (mn *mentions) view(st *styles, width int, typed string) string {
	tok, typing := mentionToken(typed)
	listing := typing && mn.loading && "@"+tok != mn.dismissed
	if len(mn.matches) == 0 {
		if listing {
			return st.hint.Render("listing files…")
		}
		return ""
	}
	var lines []string
	for i, p := range mn.matches {
		line := "  " + truncateWidth(visibleLine(p), width-4)
		if i == mn.sel {
			line = st.statusHi.Render("▸ " + truncateWidth(visibleLine(p), width-4))
		} else {
			line = st.dim.Render(line)
		}
		if t := mn.titles[p]; t != "" {
			if room := width - ansi.StringWidth(line) - 3; room > 6 {
				line += st.hint.Render("   " + truncateWidth(visibleLine(t), room))
			}
		}
		lines = append(lines, line)
	}
	hint := "tab or enter picks · ↑/↓ moves · esc closes"
	if listing {
		hint = "listing the rest of the files… · " + hint
	}
	lines = append(lines, st.hint.Render(hint))
	return strings.Join(lines, "\n")
}

// mentionedPaths are the @paths of text that name existing files.
func mentionedPaths(text, wd string) []string {
	var out []string
	for _, word := range strings.Fields(text) {
		if !strings.HasPrefix(word, "@") || len(word) < 2 {
			continue
		}
		p := strings.TrimRight(word[1:], ",.;:!?)\"'")
		if p == "" || slices.Contains(out, p) {
			continue
		}
		full := p
		if !filepath.IsAbs(full) {
			full = filepath.Join(wd, p)
		}
		if fi, err := os.Stat(full); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// outsideDir reports whether p (relative to wd, or absolute) is outside wd.
func outsideDir(p, wd string) bool {
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(wd, p)
	}
	if real, err := filepath.EvalSymlinks(full); err == nil {
		full = real
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	rel, err := filepath.Rel(wd, full)
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolveMentions attaches the files text mentions (IO: a command).
// Files outside the working directory are not read unless confirmed.
func resolveMentions(text, wd string, mc *app.MCP, confirmed bool) tea.Cmd {
	return func() tea.Msg {
		msg := mentionedMsg{text: text}
		readResources(mc, text, confirmed, &msg)
		for _, p := range mentionedPaths(text, wd) {
			if outsideDir(p, wd) && !confirmed {
				msg.outside = append(msg.outside, p)
				continue
			}
			full := p
			if !filepath.IsAbs(full) {
				full = filepath.Join(wd, p)
			}
			part, err := session.Attach(full)
			if err != nil {
				msg.errs = append(msg.errs, err.Error())
				continue
			}
			part.Filename = p
			msg.parts = append(msg.parts, part)
		}
		return msg
	}
}

// onMentioned sends a message once its mentions are read; a mention
// outside the working directory asks first (enter again attaches it).
func (m *Model) onMentioned(msg mentionedMsg) tea.Cmd {
	if len(msg.outside)+len(msg.asking) > 0 {
		m.input.set(msg.text)
		m.confirmOutside = msg.text
		var why []string
		if len(msg.outside) > 0 {
			why = append(why, visibleLine(strings.Join(msg.outside, ", "))+": outside the working directory")
		}
		if len(msg.asking) > 0 {
			why = append(why, visibleLine(strings.Join(msg.asking, ", "))+": its server's resources are read only when you say so")
		}
		m.notice = strings.Join(why, "; ") + "; enter attaches anyway, or edit the message"
		return nil
	}
	for _, e := range msg.errs {
		m.print(m.blocks().notice(m.st.err, "✗ "+e))
	}
	m.attachments = append(m.attachments, msg.parts...)
	if m.busy { // a turn started meanwhile: this one waits for it
		m.loop.Add(msg.text, false)
		return nil
	}
	return m.startTurn(msg.text)
}
