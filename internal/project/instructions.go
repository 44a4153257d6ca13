package project

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxInstructions bounds the instructions put into the system prompt: a
// huge file must not crowd out the conversation.
const MaxInstructions = 32 << 10

// Names are the instructions files, in order of preference within one
// folder: a folder with an AGENTS.md is not read for a CLAUDE.md.
var Names = []string{"AGENTS.md", "CLAUDE.md"}

// Source is one file read, and how many of its bytes went in.
type Source struct {
	Path  string
	Bytes int
}

// Instructions are the project's instructions as the system prompt
// carries them.
type Instructions struct {
	Text    string
	Sources []Source
	// Cut: the files held more than MaxInstructions; the rest was left out.
	Cut bool
}

// Root is the repository root of dir: the nearest folder at or above it
// holding .git; dir itself when there is none.
func Root(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// Folders are the folders whose instructions apply to wd, outermost
// first: the repository root down to wd.
func Folders(wd string) []string {
	root := Root(wd)
	var out []string
	for d := wd; ; d = filepath.Dir(d) {
		out = append(out, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Load reads the personal file (when not "") and then the files of the
// folders from the repository root down to wd, each folder's AGENTS.md or
// else its CLAUDE.md, within MaxInstructions in all.
func Load(wd, personal string) Instructions {
	var files []string
	if personal != "" {
		files = append(files, personal)
	}
	for _, d := range Folders(wd) {
		for _, name := range Names {
			p := filepath.Join(d, name)
			if regularFile(p) {
				files = append(files, p)
				break
			}
		}
	}
	var in Instructions
	var b strings.Builder
	room := MaxInstructions
	for _, p := range files {
		text, whole, err := readUpTo(p, room)
		if err != nil || strings.TrimSpace(text) == "" {
			continue
		}
		fmt.Fprintf(&b, "<instructions file=%q>\n%s\n</instructions>\n", p, strings.TrimSpace(text))
		in.Sources = append(in.Sources, Source{Path: p, Bytes: len(text)})
		room -= len(text)
		if !whole {
			in.Cut = true
			break
		}
	}
	if b.Len() > 0 {
		in.Text = "The project's instructions follow, from the files named (outermost first; a later file is more specific and wins where they disagree). Follow them while you work here.\n" + b.String()
	}
	return in
}

func regularFile(p string) bool {
	fi, err := os.Stat(p) // a link to a file is fine: AGENTS.md -> CLAUDE.md is common
	return err == nil && fi.Mode().IsRegular()
}

// readUpTo reads at most room bytes of p, cut at a line end; whole says
// whether that was all of it.
func readUpTo(p string, room int) (string, bool, error) {
	if room <= 0 {
		return "", false, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(room)+1))
	if err != nil {
		return "", false, err
	}
	if len(b) <= room {
		return string(b), true, nil
	}
	b = b[:room]
	if i := strings.LastIndexByte(string(b), '\n'); i > 0 {
		b = b[:i+1]
	}
	return string(b), false, nil
}
