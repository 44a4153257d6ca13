package app

import (
	"cmp"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/session"
)

// Listed is a saved session as a list shows it: priced with today's
// config and endpoint at the model it started with (nil: no price known).
type Listed struct {
	session.Info
	Cost *float64 `json:"cost_usd,omitempty"`
	// Worktree names the worktree of env's repository the session was
	// made in (chat --worktree).
	Worktree string `json:"worktree,omitempty"`
}

// ListSessions lists the saved sessions, newest first; dir, when set,
// keeps those made in it.
func ListSessions(env Env, cfg config.Config, dir string) ([]Listed, error) {
	all, err := session.Store{Dir: session.DefaultDir(env.Getenv)}.List()
	out := []Listed{} // a list, even empty: "[]" in JSON
	for _, s := range all {
		if dir != "" && s.Dir != dir {
			continue
		}
		l := Listed{Info: s}
		if p, ok := ModelPrice(cfg, cmp.Or(s.Model, cfg.Model)); ok && s.Usage.Total > 0 {
			cost := p.Cost(s.Usage)
			l.Cost = &cost
		}
		out = append(out, l)
	}
	return out, err
}

// LoadSession loads the saved session an id prefix names ("": the
// working directory's latest).
func LoadSession(env Env, prefix string) (session.Loaded, error) {
	st := session.Store{Dir: session.DefaultDir(env.Getenv)}
	var info session.Info
	var err error
	if prefix == "" {
		info, err = st.Latest(env.Workdir)
	} else {
		info, err = st.Find(prefix)
	}
	if err != nil {
		return session.Loaded{}, err
	}
	return session.Load(info.Path)
}

// RemoveSession removes a saved session and its checkpoints.
func RemoveSession(env Env, prefix string) (session.Info, error) {
	st := session.Store{Dir: session.DefaultDir(env.Getenv)}
	info, err := st.Find(prefix)
	if err != nil {
		return info, err
	}
	if err := st.Remove(info.ID); err != nil {
		return info, err
	}
	RemoveCheckpoints(env.Getenv, info.ID)
	return info, nil
}
