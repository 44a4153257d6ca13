package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"
)

// WriteFile creates or replaces a file. It needs approval; the person is
// shown the diff.
type WriteFile struct{ Workspace }

func (WriteFile) Name() string { return "write_file" }
func (WriteFile) Description() string {
	return "Create or overwrite a file with the given content. The user approves it after seeing the diff."
}
func (WriteFile) Parameters() json.RawMessage {
	return Object([]string{"path", "content"}, map[string]*Schema{
		"path":    Prop("string", "file path, relative to the working directory"),
		"content": Prop("string", "the whole new content"),
	})
}
func (WriteFile) Timeout() time.Duration { return 10 * time.Second }

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (w WriteFile) Review(raw json.RawMessage) (Review, error) {
	var a writeArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return Review{}, err
	}
	path, outside := w.resolve(a.Path)
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Review{}, fmt.Errorf("%s: %v", a.Path, err)
	}
	verb := "write"
	if errors.Is(err, fs.ErrNotExist) {
		verb = "create"
	}
	summary := fmt.Sprintf("%s %s (%d lines)", verb, a.Path, strings.Count(a.Content, "\n")+1)
	if outside {
		summary += ", outside the working directory"
	}
	return Review{NeedsApproval: true, Summary: summary, Detail: unifiedDiff(a.Path, string(old), a.Content)}, nil
}

func (w WriteFile) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a writeArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", err
	}
	path, _ := w.resolve(a.Path)
	if err := writeAtomic(path, []byte(a.Content)); err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %s (%d bytes)", a.Path, len(a.Content)), nil
}

// EditFile replaces one exact string in a file.
type EditFile struct{ Workspace }

func (EditFile) Name() string { return "edit_file" }
func (EditFile) Description() string {
	return "Replace an exact string in a file. old_string must occur exactly once (include surrounding lines to make it unique) unless replace_all is true. The user approves it after seeing the diff."
}
func (EditFile) Parameters() json.RawMessage {
	return Object([]string{"path", "old_string", "new_string"}, map[string]*Schema{
		"path":        Prop("string", "file path, relative to the working directory"),
		"old_string":  Prop("string", "the exact text to replace"),
		"new_string":  Prop("string", "the text to put in its place"),
		"replace_all": Prop("boolean", "replace every occurrence"),
	})
}
func (EditFile) Timeout() time.Duration { return 10 * time.Second }

type editArgs struct {
	Path       string `json:"path"`
	Old        string `json:"old_string"`
	New        string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// edit computes the new content, checking the edit is unambiguous.
func (e EditFile) edit(raw json.RawMessage) (a editArgs, path, old, updated string, err error) {
	if err = json.Unmarshal(raw, &a); err != nil {
		return
	}
	path, _ = e.resolve(a.Path)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%s does not exist; write_file creates files", a.Path)
		}
		return
	}
	old = string(b)
	switch n := strings.Count(old, a.Old); {
	case a.Old == "":
		err = errors.New("old_string is empty; give the exact text to replace")
	case a.Old == a.New:
		err = errors.New("old_string and new_string are the same")
	case n == 0:
		err = fmt.Errorf("old_string was not found in %s; read the file again and copy the text exactly (whitespace too)", a.Path)
	case n > 1 && !a.ReplaceAll:
		err = fmt.Errorf("old_string occurs %d times in %s; include more surrounding text to make it unique, or set replace_all", n, a.Path)
	case a.ReplaceAll:
		updated = strings.ReplaceAll(old, a.Old, a.New)
	default:
		updated = strings.Replace(old, a.Old, a.New, 1)
	}
	return
}

func (e EditFile) Review(raw json.RawMessage) (Review, error) {
	a, _, old, updated, err := e.edit(raw)
	if err != nil {
		return Review{}, err
	}
	_, outside := e.resolve(a.Path)
	summary := "edit " + a.Path
	if outside {
		summary += ", outside the working directory"
	}
	return Review{NeedsApproval: true, Summary: summary, Detail: unifiedDiff(a.Path, old, updated)}, nil
}

func (e EditFile) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	a, path, old, updated, err := e.edit(raw)
	if err != nil {
		return "", err
	}
	if err := writeAtomic(path, []byte(updated)); err != nil {
		return "", err
	}
	return fmt.Sprintf("edited %s\n%s", a.Path, truncate(unifiedDiff(a.Path, old, updated), 8<<10)), nil
}

func unifiedDiff(name, old, updated string) string {
	return udiff.Unified("a/"+name, "b/"+name, old, updated)
}

// writeAtomic replaces path by a temp file renamed over it, keeping the
// old file's mode.
func writeAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".chat-write-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
