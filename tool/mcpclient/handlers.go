package mcpclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connected says the server is connected now.
func (s *Servers) Connected(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[name] != nil
}

// connOf finds the server a session belongs to.
func (s *Servers) connOf(cs *mcp.ClientSession) (string, *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, c := range s.conns {
		if c.session == cs {
			return name, c
		}
	}
	if o, ok := s.opening[cs]; ok {
		return o.name, o.c
	}
	return "", nil
}

// startingConnOf is connOf for a request that may come as the server
// starts: between the handshake's end and the connection's record, it
// waits for the record (or for the request to end: a dial that failed
// closes the session).
func (s *Servers) startingConnOf(ctx context.Context, cs *mcp.ClientSession) (string, *conn) {
	for {
		s.mu.Lock()
		recorded := s.recorded
		s.mu.Unlock()
		if name, c := s.connOf(cs); c != nil {
			return name, c
		}
		select {
		case <-ctx.Done():
			return "", nil
		case <-recorded:
		}
	}
}

// relistPrompts and relistResources ask a server the list it said
// changed.
func (s *Servers) relistPrompts(cs *mcp.ClientSession) {
	relist(s, cs, listPrompts, func(c *conn, ps []Prompt) { c.prompts = ps })
}

func (s *Servers) relistResources(cs *mcp.ClientSession) {
	relist(s, cs, listResources, func(c *conn, rs []Resource) { c.resources = rs })
}

func relist[T any](s *Servers, cs *mcp.ClientSession, list func(context.Context, string, *mcp.ClientSession) ([]T, error), keep func(*conn, []T)) {
	name, c := s.connOf(cs)
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.stopping, connectTimeout)
	defer cancel()
	items, err := list(ctx, name, cs)
	if err != nil {
		return // the old list stays
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keep(c, items)
}

// track records a call in flight until the returned func runs.
func (c *conn) track(ctx *context.Context) func() {
	c.mu.Lock()
	c.calls[ctx] = struct{}{}
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		delete(c.calls, ctx)
		c.mu.Unlock()
	}
}

// callsContext is ctx, also ended once every call of c that was in
// flight has ended (the turn that asked was cancelled): a question
// nobody waits for any more is taken back from the person.
func (c *conn) callsContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	var calls []context.Context
	for p := range c.calls {
		calls = append(calls, *p)
	}
	c.mu.Unlock()
	allDone := func() {
		for _, cc := range calls {
			if cc.Err() == nil {
				return
			}
		}
		cancel()
	}
	for _, cc := range calls {
		stop := context.AfterFunc(cc, allDone)
		context.AfterFunc(ctx, func() { stop() })
	}
	return ctx, cancel
}

// elicit answers a server's elicitation/create: the front end's
// Elicitor asks the person; without one the form is declined.
func (s *Servers) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	name, c := s.startingConnOf(ctx, req.Session)
	if c == nil {
		return nil, errors.New("no such connection")
	}
	e, err := toElicitation(name, req.Params)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	ask := s.elicitor
	s.mu.Unlock()
	if ask == nil {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	ctx, cancel := c.callsContext(ctx)
	defer cancel()
	ans, err := ask(ctx, e)
	if err != nil {
		if ctx.Err() != nil {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		return nil, err
	}
	switch ans.Action {
	case "accept":
		if e.URL != "" {
			return &mcp.ElicitResult{Action: "accept"}, nil
		}
		content, err := e.Content(ans.Values)
		if err != nil {
			return nil, fmt.Errorf("the answer does not fit the form: %w", err)
		}
		return &mcp.ElicitResult{Action: "accept", Content: content}, nil
	case "decline", "cancel":
		return &mcp.ElicitResult{Action: ans.Action}, nil
	}
	return nil, fmt.Errorf("unknown answer %q", ans.Action)
}
