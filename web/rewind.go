package web

import (
	"net/http"
	"strconv"

	"github.com/chatrepl/chat/checkpoint"
	"github.com/chatrepl/chat/listener"
)

func (s *Server) turnDiff(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil {
		http.Error(w, "a turn is a number", http.StatusBadRequest)
		return
	}
	files, err := s.o.Run.TurnDiff(n)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	writeJSON(w, files)
}

// rewindView is a rewind's outcome, or its preview, as the page lists it.
type rewindView struct {
	Restored     []change `json:"restored"`
	Conflicts    []string `json:"conflicts"`
	Unrestorable []string `json:"unrestorable"`
	Refused      []string `json:"refused"`
	Checkpointed bool     `json:"checkpointed"`
	Report       string   `json:"report,omitempty"`
	Question     string   `json:"question,omitempty"`
}

type change struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
}

func viewOfResult(res checkpoint.Result, any bool) rewindView {
	v := rewindView{Restored: []change{}, Conflicts: clean(res.Conflicts), Unrestorable: clean(res.Unrestorable), Refused: clean(res.Refused), Checkpointed: any}
	for _, c := range res.Restored {
		v.Restored = append(v.Restored, change{Kind: string(c.Kind), Path: listener.String(c.Path)})
	}
	return v
}

func clean(paths []string) []string {
	out := []string{}
	for _, p := range paths {
		out = append(out, listener.String(p))
	}
	return out
}

// rewind previews or does a rewind to before turn n: the files (by the
// three-way rule of chat rewind: what the person changed since is left
// alone), the conversation, or both.
func (s *Server) rewind(w http.ResponseWriter, r *http.Request) {
	var req struct {
		N            int  `json:"n"`
		Files        bool `json:"files"`
		Conversation bool `json:"conversation"`
		Preview      bool `json:"preview"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	if req.Preview {
		res, any, err := s.o.Run.RewindPreview(req.N)
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		writeJSON(w, viewOfResult(res, any))
		return
	}
	if s.loop.Running() {
		http.Error(w, "a turn is running: stop it or wait for it", http.StatusConflict)
		return
	}
	rw := s.o.Run.Rewinder()
	if rw == nil {
		http.Error(w, "checkpoints are off", http.StatusConflict)
		return
	}
	report, question, err := rw.Rewind(req.N, req.Files, req.Conversation, false)
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	if req.Conversation {
		s.reset()
	}
	writeJSON(w, rewindView{Report: listener.String(report), Question: question})
}
