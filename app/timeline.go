package app

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/chatrepl/chat/checkpoint"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

// TimelineTurn is one question of the session as a timeline shows it:
// the files its turn changed and what its completions cost.
type TimelineTurn struct {
	N           int           `json:"n"`
	ID          string        `json:"id"`
	Question    string        `json:"question"`
	Changes     []Change      `json:"changes"`
	Checkpoint  bool          `json:"checkpointed"` // it ran a tool that may change files
	Interrupted bool          `json:"interrupted,omitempty"`
	Usage       session.Usage `json:"usage"`
	Cost        *float64      `json:"cost_usd,omitempty"`
}

// Change is a file a turn created (+), modified (~) or deleted (-).
type Change struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
}

// Listeners is the run's listener list: a front end that joins late
// (a page on the live session) adds itself to it.
func (r *Run) Listeners() *listener.List { return r.spec.Listeners }

// Timeline is the session's turns, oldest first, with the files each
// changed (when checkpoints are on) and its tokens and cost.
func (r *Run) Timeline() ([]TimelineTurn, error) {
	msgs := r.agent.Session().Messages()
	var rows []TurnRow
	if r.checkpoints != nil {
		var err error
		if rows, _, err = (replRewinder{w: r, cp: r.checkpoints}).rows(); err != nil {
			rows = nil // no checkpoint yet: the turns without their files
		}
	}
	price := PriceOf(r.cfg)
	var out []TimelineTurn
	for _, m := range msgs {
		switch {
		case m.Role == session.RoleUser && !m.Rewound && !m.MidTurn:
			t := TimelineTurn{N: len(out) + 1, ID: m.ID, Question: listener.String(session.Title(m.Content))}
			if len(rows) >= t.N && rows[t.N-1].Question.ID == m.ID {
				row := rows[t.N-1]
				t.Checkpoint, t.Interrupted = row.Has, row.Interrupted
				for _, c := range row.Changes {
					t.Changes = append(t.Changes, Change{Kind: string(c.Kind), Path: listener.String(c.Path)})
				}
			}
			out = append(out, t)
		case m.Role == session.RoleAssistant && m.Usage != nil && len(out) > 0:
			out[len(out)-1].Usage = out[len(out)-1].Usage.Add(*m.Usage)
		}
	}
	model := cmp.Or(r.agent.Model(), r.cfg.Model)
	for i := range out {
		if c, ok := price(model, out[i].Usage); ok && out[i].Usage.Total > 0 {
			out[i].Cost = &c
		}
	}
	if out == nil {
		out = []TimelineTurn{}
	}
	return out, nil
}

// FileDiff is what a turn did to one file, as a unified diff ("" for a
// file too big to have been stored, or not text).
type FileDiff struct {
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Diff   string `json:"diff"`
	TooBig bool   `json:"too_big,omitempty"`
	Binary bool   `json:"binary,omitempty"`
}

// errNoCheckpoints: checkpoints are off for this run.
var errNoCheckpoints = errors.New("checkpoints are off: no record of what turns did to files")

// turnRow is turn n (from 1) of the session with its checkpoint store.
func (r *Run) turnRow(n int) ([]TurnRow, *checkpoint.Store, error) {
	if r.checkpoints == nil {
		return nil, nil, errNoCheckpoints
	}
	rows, st, err := (replRewinder{w: r, cp: r.checkpoints}).rows()
	if err != nil {
		return nil, nil, err
	}
	if n < 1 || n > len(rows) {
		return nil, nil, fmt.Errorf("there are %d turns", len(rows))
	}
	return rows, st, nil
}

// TurnDiff is what turn n (from 1) did to each file it changed.
func (r *Run) TurnDiff(n int) ([]FileDiff, error) {
	rows, st, err := r.turnRow(n)
	if err != nil {
		return nil, err
	}
	out := []FileDiff{}
	if !rows[n-1].Has {
		return out, nil
	}
	changes, err := st.TurnChanges(r.checkpoints.wd, rows[n-1].Question.ID)
	if err != nil {
		return nil, err
	}
	for _, c := range changes {
		d := FileDiff{Kind: string(c.Kind), Path: listener.String(c.Path), TooBig: c.TooBig}
		switch {
		case c.TooBig:
		case !utf8.Valid(c.Before) || !utf8.Valid(c.After) || bytes.IndexByte(c.Before, 0) >= 0 || bytes.IndexByte(c.After, 0) >= 0:
			d.Binary = true
		default:
			d.Diff = listener.String(udiff.Unified("a/"+c.Path, "b/"+c.Path, string(c.Before), string(c.After)))
		}
		out = append(out, d)
	}
	return out, nil
}

// RewindPreview is what rewinding the files to before turn n would do now
// (nothing is changed): what it would put back, and what it would leave
// alone because the person changed it since.
func (r *Run) RewindPreview(n int) (checkpoint.Result, bool, error) {
	rows, st, err := r.turnRow(n)
	if err != nil {
		return checkpoint.Result{}, false, err
	}
	for _, row := range rows[n-1:] {
		if row.Has {
			res, err := st.Preview(r.checkpoints.wd, row.Question.ID, false)
			return res, true, err
		}
	}
	return checkpoint.Result{}, false, nil
}
