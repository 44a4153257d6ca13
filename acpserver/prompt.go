package acpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/chatrepl/chat/app"
	"net/url"
	"path"
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
)

// Prompt implements acp.Agent: one prompt is one turn. A prompt sent
// while a turn runs waits for it (prompts never join); text for the
// running turn goes through _chat/steer.
func (s *Server) Prompt(_ context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	l, err := s.session(p.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	text, files, err := promptContent(p.Prompt)
	if err == nil && strings.TrimSpace(text) == "" && len(files) == 0 {
		err = errors.New("the prompt is empty")
	}
	if err != nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	// The request's own context is not the turn's: the SDK cancels it
	// when the next prompt arrives, and that one only waits.
	select {
	case l.turn <- struct{}{}:
	case <-s.ctx.Done():
		return acp.PromptResponse{}, errClosed
	}
	defer func() { <-l.turn }()
	return l.prompt(s.ctx, text, files)
}

func (l *live) prompt(ctx context.Context, text string, files []session.FilePart) (acp.PromptResponse, error) {
	// A client that prompts knows the session, however its answer to
	// session/new was written.
	l.out.release()
	var t *app.Turn
	model := "" // a prompt file's, for its turn
	if name, args, ok := strings.Cut(strings.TrimSpace(text)+" ", " "); ok && strings.HasPrefix(name, "/") && len(files) == 0 {
		for _, c := range l.s.Commands {
			if "/"+c.Name != name {
				continue
			}
			res, err := c.Run(ctx, strings.TrimSpace(args))
			switch {
			case err != nil:
				return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
			case res.Turn != nil:
				t = res.Turn
			case res.Prompt != "":
				text, model = res.Prompt, res.Model
			default:
				l.out.push(update{u: acp.UpdateAgentMessageText(res.Show)})
				l.out.flush()
				return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
			}
			break
		}
	}
	if t == nil && l.s.Expand != nil {
		var err error
		if text, files, err = l.s.Expand(ctx, text, files); err != nil {
			return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
		}
	}
	l.events.beginTurn()
	if t == nil {
		t = l.s.NewTurn(ctx, model, text, files...)
	}
	// Text steered in after the turn's last look at the Interloper goes
	// on in this same prompt: it is never lost, and never left for later.
	out, unsent := l.s.Loop.RunTurns(ctx, t, func(more string) {
		l.out.push(update{u: acp.UpdateUserMessageText(more)})
	})
	// What is said rather than failed: a message the person's hook
	// refused (the agent declines: refusal), nothing to compact.
	var blocked *app.PromptBlockedError
	switch {
	case errors.As(out.Err, &blocked):
		l.out.push(update{u: acp.UpdateAgentMessageText(out.Err.Error())})
	case errors.Is(out.Err, app.ErrNothingToCompact):
		l.out.push(update{u: acp.UpdateAgentMessageText(out.Err.Error())})
		out.Err = nil
	}
	l.events.closeOpen()
	l.out.flush()
	used, finish := l.events.endTurn()
	resp := acp.PromptResponse{StopReason: stopReason(out, finish)}
	meta := map[string]any{}
	if len(unsent) > 0 {
		// Steered text the cancelled turn never took goes back to the
		// editor, as the REPL puts it back into the input.
		meta["unsent"] = unsent
	}
	if used.total > 0 {
		resp.Usage = &acp.Usage{InputTokens: used.prompt, OutputTokens: used.completion, TotalTokens: used.total}
	}
	if out.Err != nil && !errors.Is(out.Err, control.ErrCancelled) && blocked == nil {
		// The session stays usable; the turn ends with a reason and the
		// editor shows why, with the advice (an internal error hid it).
		l.out.push(update{u: acp.UpdateAgentMessageText("\n\n✗ " + out.Err.Error())})
		l.out.flush()
		resp.StopReason = acp.StopReasonEndTurn
		if errors.As(out.Err, new(*app.TooLargeError)) || errors.Is(out.Err, llm.ErrContextExceeded) {
			resp.StopReason = acp.StopReasonMaxTokens
		}
		meta["error"] = out.Err.Error()
	}
	if len(meta) > 0 {
		resp.Meta = map[string]any{"chat": meta}
	}
	return resp, nil
}

// stopReason maps how a turn ended to ACP's words.
func stopReason(out app.Outcome, finish string) acp.StopReason {
	switch {
	case errors.Is(out.Err, control.ErrCancelled) || out.Result.Interrupted:
		return acp.StopReasonCancelled
	case errors.As(out.Err, new(*app.PromptBlockedError)):
		return acp.StopReasonRefusal
	case out.Result.Synthesized:
		return acp.StopReasonMaxTurnRequests
	case finish == "content_filter":
		return acp.StopReasonRefusal
	case finish == "length":
		return acp.StopReasonMaxTokens
	}
	return acp.StopReasonEndTurn
}

// promptContent turns a prompt's blocks into the turn's text and files:
// text as it is, images and embedded resources as attachments, links to
// local files as attachments (the person chose them), other links by name.
func promptContent(blocks []acp.ContentBlock) (string, []session.FilePart, error) {
	var text []string
	var files []session.FilePart
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			text = append(text, b.Text.Text)
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				return "", nil, fmt.Errorf("an image is not valid base64: %v", err)
			}
			if len(data) > session.MaxImageBytes {
				return "", nil, fmt.Errorf("an image is over %d MiB", session.MaxImageBytes>>20)
			}
			files = append(files, session.FilePart{MediaType: b.Image.MimeType, Filename: "image", Data: data})
		case b.Resource != nil:
			part, err := embedded(b.Resource.Resource)
			if err != nil {
				return "", nil, err
			}
			files = append(files, part)
		case b.ResourceLink != nil:
			if p, ok := localPath(b.ResourceLink.Uri); ok {
				part, err := session.Attach(p)
				if err != nil {
					return "", nil, err
				}
				files = append(files, part)
				continue
			}
			text = append(text, fmt.Sprintf("[%s](%s)", b.ResourceLink.Name, b.ResourceLink.Uri))
		case b.Audio != nil:
			return "", nil, errors.New("audio is not supported (promptCapabilities.audio is false)")
		}
	}
	return strings.Join(text, "\n\n"), files, nil
}

// embedded is an embedded resource as an attachment.
func embedded(r acp.EmbeddedResourceResource) (session.FilePart, error) {
	switch {
	case r.TextResourceContents != nil:
		c := r.TextResourceContents
		if len(c.Text) > session.MaxTextBytes {
			return session.FilePart{}, fmt.Errorf("%s is over the %d MiB limit for text", c.Uri, session.MaxTextBytes>>20)
		}
		mt := "text/plain"
		if c.MimeType != nil && strings.HasPrefix(*c.MimeType, "text/") {
			mt = *c.MimeType
		}
		return session.FilePart{MediaType: mt, Filename: resourceName(c.Uri), Data: []byte(c.Text)}, nil
	case r.BlobResourceContents != nil:
		c := r.BlobResourceContents
		if c.MimeType == nil || !strings.HasPrefix(*c.MimeType, "image/") {
			return session.FilePart{}, fmt.Errorf("%s: only images and text can be attached", c.Uri)
		}
		data, err := base64.StdEncoding.DecodeString(c.Blob)
		if err != nil || len(data) > session.MaxImageBytes {
			return session.FilePart{}, fmt.Errorf("%s: not a valid image of at most %d MiB", c.Uri, session.MaxImageBytes>>20)
		}
		return session.FilePart{MediaType: *c.MimeType, Filename: resourceName(c.Uri), Data: data}, nil
	}
	return session.FilePart{}, errors.New("an embedded resource with no contents")
}

// resourceName is what the model is told a resource is called: its path
// for a local file, else the URI.
func resourceName(uri string) string {
	if p, ok := localPath(uri); ok {
		return p
	}
	return uri
}

// localPath is the path of a file: URI.
func localPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	return path.Clean(u.Path), true
}
