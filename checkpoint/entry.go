package checkpoint

import "io/fs"

// Entry is one path in a checkpoint.
type Entry struct {
	Hash   string      `json:"h,omitempty"` // SHA-256 of the content (of the link target, for a symlink)
	Mode   fs.FileMode `json:"m"`
	Size   int64       `json:"s"`
	MTime  int64       `json:"t"` // Unix nanoseconds
	Ino    uint64      `json:"i,omitempty"`
	TooBig bool        `json:"b,omitempty"` // over the size limit: not stored
}

// same reports whether two entries hold the same content and mode, as far
// as a restore is concerned.
func (e Entry) same(o Entry) bool {
	if e.TooBig || o.TooBig {
		return e.TooBig == o.TooBig && e.Size == o.Size && e.MTime == o.MTime && e.Ino == o.Ino
	}
	return e.Hash == o.Hash && e.Mode == o.Mode
}

// Change is a path that differs between two states.
type Change struct {
	Path string
	Kind byte // '+' created, '~' modified, '-' deleted
}

// Diff lists what changed from a to b, sorted by path.
func Diff(a, b map[string]Entry) []Change {
	var out []Change
	for p, eb := range b {
		ea, ok := a[p]
		switch {
		case !ok:
			out = append(out, Change{p, '+'})
		case !ea.same(eb):
			out = append(out, Change{p, '~'})
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			out = append(out, Change{p, '-'})
		}
	}
	sortChanges(out)
	return out
}
