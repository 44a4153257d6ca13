package checkpoint

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// packMax is the largest object kept in a pack; bigger ones are files of
// their own.
const packMax = 64 << 10

// packs keep the small objects a checkpoint adds in one file
// (packs/SEQ.pack, its index in packs/SEQ.idx): a first checkpoint of a
// large tree creates one file, not thousands, and file creation is what
// such a checkpoint costs. The index is written when the checkpoint is
// done; a pack without one (a crash) is ignored, its objects stored again.
type packs struct {
	mu    sync.Mutex
	index map[string]packLoc // every packed object of the store
	// The pack of the checkpoint being taken.
	seq  int
	file *os.File
	off  int64
	adds map[string]packLoc
}

type packLoc struct {
	Pack int   `json:"p"`
	Off  int64 `json:"o"`
	Len  int64 `json:"l"`
}

func packPath(dir string, seq int, ext string) string {
	return filepath.Join(dir, "packs", fmt.Sprintf("%08d.%s", seq, ext))
}

// load reads every pack index.
func (pk *packs) load(dir string) {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	pk.index = map[string]packLoc{}
	idx, _ := filepath.Glob(filepath.Join(dir, "packs", "*.idx"))
	for _, p := range idx {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var m map[string]packLoc
		if json.Unmarshal(b, &m) == nil {
			for h, loc := range m {
				pk.index[h] = loc
			}
		}
	}
}

// begin starts the pack of checkpoint seq (its file is made at the first
// object).
func (pk *packs) begin(seq int) {
	pk.mu.Lock()
	pk.seq, pk.file, pk.off, pk.adds = seq, nil, 0, map[string]packLoc{}
	pk.mu.Unlock()
}

// add stores data in the current pack unless an object with its hash is
// packed already; n is the bytes added.
func (pk *packs) add(dir, hash string, data []byte) (int64, error) {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if _, ok := pk.index[hash]; ok {
		return 0, nil
	}
	if _, ok := pk.adds[hash]; ok {
		return 0, nil
	}
	if pk.file == nil {
		if err := os.MkdirAll(filepath.Join(dir, "packs"), 0o700); err != nil {
			return 0, err
		}
		f, err := os.OpenFile(packPath(dir, pk.seq, "pack"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return 0, err
		}
		pk.file = f
	}
	if _, err := pk.file.Write(data); err != nil {
		return 0, err
	}
	pk.adds[hash] = packLoc{Pack: pk.seq, Off: pk.off, Len: int64(len(data))}
	pk.off += int64(len(data))
	return int64(len(data)), nil
}

// finish closes the current pack and writes its index; a checkpoint
// that failed (keep false) leaves no pack behind.
func (pk *packs) finish(dir string, keep bool) error {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.file == nil {
		return nil
	}
	if !keep {
		pk.file.Close()
		pk.file, pk.adds = nil, nil
		return os.Remove(packPath(dir, pk.seq, "pack"))
	}
	err := pk.file.Close()
	pk.file = nil
	if err != nil {
		return err
	}
	if err := writeJSON(packPath(dir, pk.seq, "idx"), pk.adds); err != nil {
		return err
	}
	for h, loc := range pk.adds {
		pk.index[h] = loc
	}
	pk.adds = nil
	return nil
}

func (pk *packs) has(hash string) bool {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	_, ok := pk.index[hash]
	return ok
}

// read returns a packed object; ok is false when it is not packed.
func (pk *packs) read(dir, hash string) (data []byte, ok bool, err error) {
	pk.mu.Lock()
	loc, ok := pk.index[hash]
	pk.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	f, err := os.Open(packPath(dir, loc.Pack, "pack"))
	if err != nil {
		return nil, true, err
	}
	defer f.Close()
	data = make([]byte, loc.Len)
	if _, err := f.ReadAt(data, loc.Off); err != nil && err != io.EOF {
		return nil, true, err
	}
	return data, true, nil
}

// drop removes the packs none of whose objects is used any more, and
// returns the bytes the remaining ones take.
func (pk *packs) drop(dir string, used map[string]bool) int64 {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	live := map[int]bool{}
	for h, loc := range pk.index {
		if used[h] {
			live[loc.Pack] = true
		}
	}
	var total int64
	idx, _ := filepath.Glob(filepath.Join(dir, "packs", "*.idx"))
	for _, p := range idx {
		seq, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(p), ".idx"))
		if err != nil {
			continue
		}
		if !live[seq] {
			os.Remove(packPath(dir, seq, "pack"))
			os.Remove(p)
			continue
		}
		if fi, err := os.Stat(packPath(dir, seq, "pack")); err == nil {
			total += fi.Size()
		}
	}
	for h, loc := range pk.index {
		if !live[loc.Pack] {
			delete(pk.index, h)
		}
	}
	return total
}
