package app

import (
	"cmp"

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
		if rows, _, err = (replRewinder{w: r, cp: r.checkpoints}).rows(); err != nil && len(msgs) > 1 {
			rows = nil // no checkpoint yet: the turns without their files
		}
	}
	price := PriceOf(r.cfg)
	var out []TimelineTurn
	for _, m := range msgs {
		switch {
		case m.Role == session.RoleUser && !m.Rewound:
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
