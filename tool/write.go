package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/chatrepl/chat/internal/regular"
)

// maxEditSize bounds the file edit_file and write_file read for a diff.
const maxEditSize = 8 << 20

// WriteFile creates or replaces a file. It needs approval; the person is
// shown the diff.
type WriteFile struct {
	Workspace
	described[writeFileName]
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (a writeArgs) file() string { return a.Path }

// writeReviewOf decodes a writing tool's arguments and reviews its target.
func writeReviewOf[A interface{ file() string }](w Workspace, raw json.RawMessage) (A, Review, *fileTarget, bool, error) {
	var a A
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, Review{}, nil, false, err
	}
	r, t, exists, err := w.writeReview(a.file())
	return a, r, t, exists, err
}

// writeReview resolves a file tool's target and says what asking shows.
// Nothing is read here: only its type is looked at, so a FIFO or a device
// is refused before anyone is asked.
func (w Workspace) writeReview(p string) (Review, *fileTarget, bool, error) {
	t, err := w.target(p)
	if err != nil {
		return Review{}, nil, false, err
	}
	exists := false
	if st, err := os.Lstat(t.abs); err == nil {
		if !st.Mode().IsRegular() {
			return Review{}, nil, false, &regular.NotRegularError{Name: p, Mode: st.Mode()}
		}
		exists = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Review{}, nil, false, fmt.Errorf("%s: %v", p, err)
	}
	r := Review{NeedsApproval: true, Target: t.abs, file: t, Grants: []Grant{{Kind: GrantWrite, Value: t.dir}}}
	return r, t, exists, nil
}

func (w WriteFile) Review(_ context.Context, raw json.RawMessage) (Review, error) {
	a, r, t, exists, err := writeReviewOf[writeArgs](w.Workspace, raw)
	if err != nil {
		return Review{}, err
	}
	verb := "create"
	if exists {
		verb = "overwrite"
	}
	lines := linesOf(a.Content)
	old := ""
	if t.outside {
		r.Summary = fmt.Sprintf("%s %s (%s), outside the working directory", verb, t.abs, lines)
		r.Warning = "its current content is not read before you approve"
	} else {
		r.Summary = fmt.Sprintf("%s %s (%s)", verb, t.name, lines)
		if exists {
			b, err := t.readAll(maxEditSize)
			if err != nil {
				return Review{}, err
			}
			old = string(b)
		}
	}
	r.Detail = unifiedDiff(t.shown(), old, a.Content)
	return r, nil
}

func (w WriteFile) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	a, t, err := fileCall[writeArgs](ctx, w.Workspace, raw)
	if err != nil {
		return "", err
	}
	if err := t.write([]byte(a.Content)); err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %s (%d bytes)", a.Path, len(a.Content)), nil
}

// EditFile replaces one exact string in a file.
type EditFile struct {
	Workspace
	described[editFileName]
}

type editArgs struct {
	Path       string `json:"path"`
	Old        string `json:"old_string"`
	New        string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

func (a editArgs) file() string { return a.Path }

// edit reads the target and computes the new content, checking the edit
// is unambiguous.
func edit(t *fileTarget, a editArgs) (old, updated string, err error) {
	switch {
	case a.Old == "":
		return "", "", errors.New("old_string is empty; give the exact text to replace")
	case a.Old == a.New:
		return "", "", errors.New("old_string and new_string are the same")
	}
	b, err := t.readAll(maxEditSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%s does not exist; write_file creates files", a.Path)
		}
		return "", "", err
	}
	old = string(b)
	switch n := strings.Count(old, a.Old); {
	case n == 0:
		err = fmt.Errorf("old_string was not found in %s; read the file again and copy the text exactly (whitespace too)", a.Path)
	case n > 1 && !a.ReplaceAll:
		err = fmt.Errorf("old_string occurs %d times in %s; include more surrounding text to make it unique, or set replace_all", n, a.Path)
	case a.ReplaceAll:
		updated = strings.ReplaceAll(old, a.Old, a.New)
	default:
		updated = strings.Replace(old, a.Old, a.New, 1)
	}
	return old, updated, err
}

// Review shows the diff for a file inside the working directory (reading
// there is free). Outside it, nothing is read before approval: the person
// sees the text to replace and its replacement.
func (e EditFile) Review(_ context.Context, raw json.RawMessage) (Review, error) {
	a, r, t, exists, err := writeReviewOf[editArgs](e.Workspace, raw)
	if err != nil {
		return Review{}, err
	}
	if t.outside {
		r.Summary = fmt.Sprintf("edit %s, outside the working directory", t.abs)
		r.Warning = "the file is not read before you approve; this replaces the text below"
		r.Detail = unifiedDiff(t.abs, a.Old, a.New)
		return r, nil
	}
	if !exists {
		return Review{}, fmt.Errorf("%s does not exist; write_file creates files", a.Path)
	}
	old, updated, err := edit(t, a)
	if err != nil {
		return Review{}, err
	}
	r.Summary = "edit " + t.name
	r.Detail = unifiedDiff(t.name, old, updated)
	return r, nil
}

func (e EditFile) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	a, t, err := fileCall[editArgs](ctx, e.Workspace, raw)
	if err != nil {
		return "", err
	}
	old, updated, err := edit(t, a)
	if err != nil {
		return "", err
	}
	if err := t.write([]byte(updated)); err != nil {
		return "", err
	}
	return fmt.Sprintf("edited %s\n%s", a.Path, Truncate(unifiedDiff(t.shown(), old, updated), 8<<10)), nil
}

// shown names the file as the person knows it: relative inside the
// working directory (however the model wrote its path), whole outside it.
func (t *fileTarget) shown() string {
	if t.outside {
		return t.abs
	}
	return t.name
}

func unifiedDiff(name, old, updated string) string {
	name = strings.TrimPrefix(name, "/")
	return udiff.Unified("a/"+name, "b/"+name, old, updated)
}

// linesOf says how many lines text has, as a person counts them: a last
// line without its newline counts, a final newline does not start one.
func linesOf(text string) string {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	switch n {
	case 0:
		return "empty"
	case 1:
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}
