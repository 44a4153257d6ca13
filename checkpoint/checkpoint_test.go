package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func write(t testing.TB, root, p, content string, mode os.FileMode) {
	t.Helper()
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(full, mode)
}

// tree reads every file under root (but .git): path → mode and content.
func tree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if fi.IsDir() && fi.Name() == ".git" {
			return filepath.SkipDir
		}
		if fi.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "link:" + target
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = fmt.Sprintf("%v %s", fi.Mode(), b)
		return nil
	})
	return out
}

// TestRewindBringsTheTreeBack: created, modified, deleted, re-moded and
// linked files come back byte for byte, in a folder that is not a git
// repository; a file the person edited after the agent is left alone and
// listed unless forced; ignored files are never touched.
func TestRewindBringsTheTreeBack(t *testing.T) {
	root, st := t.TempDir(), &Store{Dir: t.TempDir()}
	write(t, root, "keep.txt", "keep\n", 0o644)
	write(t, root, "mod.txt", "original\n", 0o644)
	write(t, root, "del/gone.txt", "will be deleted\n", 0o600)
	write(t, root, "run.sh", "#!/bin/sh\n", 0o755)
	write(t, root, ".gitignore", "build/\n", 0o644)
	write(t, root, "build/out.bin", "ignored", 0o644)
	_ = os.Symlink("keep.txt", filepath.Join(root, "link"))
	want := tree(t, root)

	// Turn 1: the agent changes everything.
	if _, _, err := st.Take(root, "t1", "before run_shell"); err != nil {
		t.Fatal(err)
	}
	write(t, root, "mod.txt", "changed by the agent\n", 0o644)
	write(t, root, "new/created.txt", "new\n", 0o644)
	os.RemoveAll(filepath.Join(root, "del"))
	os.Chmod(filepath.Join(root, "run.sh"), 0o644)
	os.Remove(filepath.Join(root, "link"))
	os.Symlink("mod.txt", filepath.Join(root, "link"))
	write(t, root, "build/out.bin", "rebuilt", 0o644)
	if _, _, err := st.Take(root, "t1", "after"); err != nil {
		t.Fatal(err)
	}
	turns, err := st.Turns(nil)
	if err != nil || len(turns) != 1 {
		t.Fatalf("%v %v", turns, err)
	}
	got := fmt.Sprint(turns[0].Changes)
	if got != "[{del/gone.txt 45} {link 126} {mod.txt 126} {new/created.txt 43} {run.sh 126}]" {
		t.Fatalf("changes %s", got)
	}
	res, err := st.Rewind(root, "t1", false)
	if err != nil || len(res.Conflicts) > 0 {
		t.Fatalf("%+v %v", res, err)
	}
	now := tree(t, root)
	delete(now, "build/out.bin")
	delete(want, "build/out.bin")
	for p := range now {
		if filepath.Dir(p) == "new" {
			t.Errorf("created file %s was not removed", p)
		}
	}
	delete(now, "new")
	if fmt.Sprint(now) != fmt.Sprint(want) {
		t.Fatalf("after rewind:\n%v\nwant\n%v", now, want)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "build", "out.bin")); string(b) != "rebuilt" {
		t.Fatal("an ignored file was touched")
	}

	// Turn 2: the agent changes mod.txt, then the person edits it too.
	st.Take(root, "t2", "before edit_file")
	write(t, root, "mod.txt", "agent again\n", 0o644)
	write(t, root, "other.txt", "agent made\n", 0o644)
	st.Take(root, "t2", "after")
	write(t, root, "mod.txt", "the person's own edit\n", 0o644)
	res, err = st.Rewind(root, "t2", false)
	if err != nil || !slices.Equal(res.Conflicts, []string{"mod.txt"}) {
		t.Fatalf("%+v %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "mod.txt")); string(b) != "the person's own edit\n" {
		t.Fatalf("the person's edit was overwritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "other.txt")); err == nil {
		t.Fatal("the agent's new file was kept")
	}
	if res, err = st.Rewind(root, "t2", true); err != nil || len(res.Conflicts) > 0 {
		t.Fatalf("forced: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "mod.txt")); string(b) != "original\n" {
		t.Fatalf("forced rewind: %q", b)
	}
}

// TestStorageGrowsByChangedContent: an unchanged tree adds no content;
// identical files are stored once; past MaxTotal the oldest checkpoints
// go, with a note.
func TestStorageGrowsByChangedContent(t *testing.T) {
	root, st := t.TempDir(), &Store{Dir: t.TempDir(), MaxTotal: 64 << 10}
	for i := range 20 {
		write(t, root, fmt.Sprintf("f%d.txt", i), "same content\n", 0o644)
	}
	st.Take(root, "t1", "before")
	size := stored(st)
	st.Take(root, "t1", "after")
	if size != int64(len("same content\n")) || stored(st) != size {
		t.Fatalf("stored %d bytes for 20 identical files, then %d", size, stored(st))
	}
	big := make([]byte, 40<<10)
	var note string
	for i := range 4 {
		big[0] = byte(i)
		write(t, root, "big.bin", string(big), 0o644)
		_, n, err := st.Take(root, fmt.Sprint("t", i+2), "before")
		if err != nil {
			t.Fatal(err)
		}
		if n != "" {
			note = n
		}
	}
	if note == "" || stored(st) > 64<<10 {
		t.Fatalf("not pruned: %q, %d bytes", note, stored(st))
	}
	infos, _ := st.Checkpoints()
	if _, err := st.State(infos[0].Seq); err != nil {
		t.Fatalf("the oldest kept checkpoint cannot be read: %v", err)
	}
}

// TestTooLargeStopsEarly: a folder with more new content than the store
// may hold is refused as soon as that is known.
func TestTooLargeStopsEarly(t *testing.T) {
	root, st := t.TempDir(), &Store{Dir: t.TempDir(), MaxTotal: 64 << 10}
	for i := range 40 {
		write(t, root, fmt.Sprintf("f%02d.bin", i), fmt.Sprintf("%d%s", i, make([]byte, 8<<10)), 0o644)
	}
	if _, _, err := st.Take(root, "t", "before"); err != ErrTooBig {
		t.Fatalf("took a 320 KiB tree into a 64 KiB store: %v", err)
	}
}

// TestDamagedContentIsNotRestored: stored content that a crash cut short
// (it no longer matches its hash) is listed as not restorable; the rest
// of the rewind goes on.
func TestDamagedContentIsNotRestored(t *testing.T) {
	root, st := t.TempDir(), &Store{Dir: t.TempDir()}
	write(t, root, "a.txt", "original a\n", 0o644)
	write(t, root, "b.txt", "original b\n", 0o644)
	st.Take(root, "t1", "before")
	state, _ := st.State(1)
	loc := st.pk.index[state["a.txt"].Hash]
	pack, _ := os.OpenFile(packPath(st.Dir, loc.Pack, "pack"), os.O_WRONLY, 0)
	_, _ = pack.WriteAt([]byte("XXXX"), loc.Off) // damaged
	pack.Close()
	write(t, root, "a.txt", "agent\n", 0o644)
	write(t, root, "b.txt", "agent\n", 0o644)
	st.Take(root, "t1", "after")
	res, err := st.Rewind(root, "t1", false)
	if err != nil || !slices.Equal(res.Unrestorable, []string{"a.txt"}) {
		t.Fatalf("%+v %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "b.txt")); string(b) != "original b\n" {
		t.Fatalf("b.txt %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "agent\n" {
		t.Fatalf("a.txt was overwritten with damaged content: %q", b)
	}
}

// stored is the bytes of content a store holds.
func stored(st *Store) int64 {
	n := dirSize(filepath.Join(st.Dir, "objects"))
	packs, _ := filepath.Glob(filepath.Join(st.Dir, "packs", "*.pack"))
	for _, p := range packs {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// TestRewindOfSeveralTurns (CK4): rewinding to before turn 1 undoes what
// every later turn did too, also to files turn 1 never touched.
func TestRewindOfSeveralTurns(t *testing.T) {
	root, st := t.TempDir(), &Store{Dir: t.TempDir()}
	write(t, root, "a.txt", "a\n", 0o644)
	write(t, root, "c.txt", "c\n", 0o644)
	want := tree(t, root)
	st.Take(root, "t1", "before write_file")
	write(t, root, "a.txt", "a by turn 1\n", 0o644)
	st.Take(root, "t1", "after")
	st.Take(root, "t2", "before run_shell")
	write(t, root, "b.txt", "made by turn 2\n", 0o644)
	write(t, root, "c.txt", "c by turn 2\n", 0o644)
	st.Take(root, "t2", "after")
	res, err := st.Rewind(root, "t1", false)
	if err != nil || len(res.Conflicts) > 0 || len(res.Restored) != 3 {
		t.Fatalf("%+v %v", res, err)
	}
	if got := tree(t, root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after the rewind:\n%v\nwant\n%v", got, want)
	}
}

// TestDeletedThenRecreatedByThePerson (CK1): the agent deleted a file and
// the person made it again: the person's file is a conflict, left alone
// unless forced (then the original comes back).
func TestDeletedThenRecreatedByThePerson(t *testing.T) {
	root, st := t.TempDir(), &Store{Dir: t.TempDir()}
	write(t, root, "notes.txt", "original\n", 0o644)
	st.Take(root, "t1", "before run_shell")
	os.Remove(filepath.Join(root, "notes.txt"))
	st.Take(root, "t1", "after")
	write(t, root, "notes.txt", "the person's new notes\n", 0o644)
	res, err := st.Rewind(root, "t1", false)
	if err != nil || !slices.Equal(res.Conflicts, []string{"notes.txt"}) || len(res.Restored) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != "the person's new notes\n" {
		t.Fatalf("the person's file was overwritten: %q", b)
	}
	if res, err = st.Rewind(root, "t1", true); err != nil || len(res.Restored) != 1 {
		t.Fatalf("forced: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != "original\n" {
		t.Fatalf("forced: %q", b)
	}
}

// TestAnInterruptedTurnsChangesAreTheFilesNow: a turn chat never finished
// (killed mid-command: a "before" and no "after") changed the files as
// they are now; its diff shows them, not an emptied file.
func TestAnInterruptedTurnsChangesAreTheFilesNow(t *testing.T) {
	root := t.TempDir()
	st := &Store{Dir: t.TempDir()}
	write(t, root, "k.txt", "orig\n", 0o644)
	if _, _, err := st.Take(root, "t1", "before run_shell"); err != nil {
		t.Fatal(err)
	}
	write(t, root, "k.txt", "orig\nappended\n", 0o644)
	write(t, root, "m.txt", "m\n", 0o644)
	// chat is killed here: no "after" checkpoint.
	changes, err := st.TurnChanges(root, "t1")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range changes {
		got[c.Path] = string(c.Kind) + " " + string(c.Before) + "→" + string(c.After)
	}
	if got["k.txt"] != "~ orig\n→orig\nappended\n" || got["m.txt"] != "+ →m\n" {
		t.Fatalf("changes %q", got)
	}
}
