package synthesizer

import (
	"context"
	"strings"
	"unicode"

	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
)

// TitlePrompt asks for a session's title. Its first words are how a test
// server tells such a request apart (oaitest.TitleMarker).
const TitlePrompt = "You name conversations for a list of saved sessions. Reply with a title of 3 to 7 words that says what the person wants, in the language they wrote in: plain words, no quotes, no full stop, nothing else."

// maxTitle bounds a title, in bytes.
const maxTitle = 80

// Title asks model for a short title of the conversation that began with
// question and answer; ErrNoAnswer when it gives nothing usable.
func Title(ctx context.Context, client *llm.Client, model, question, answer string) (string, session.Usage, error) {
	prompt := "The person asked:\n<question>\n" + clip.String(strings.TrimSpace(question), 2000) + "\n</question>\n\n"
	if answer = strings.TrimSpace(answer); answer != "" {
		prompt += "The answer began:\n<answer>\n" + clip.String(answer, 1000) + "\n</answer>\n\n"
	}
	prompt += "The title:"
	resp, err := client.Complete(ctx, llm.Request{Model: model, MaxTokens: 32, NoStream: true,
		Messages: []session.Message{session.System(TitlePrompt), session.User(prompt)}}, llm.Handler{})
	var used session.Usage
	if resp.Usage != nil {
		used = *resp.Usage
	}
	if err != nil {
		return "", used, err
	}
	title := cleanTitle(resp.Content)
	if title == "" {
		return "", used, ErrNoAnswer
	}
	return title, used, nil
}

// cleanTitle is a model's title as a list shows it: its first line, without
// a "Title:" label, quotes or a closing full stop, spaces joined, cut.
func cleanTitle(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	for _, label := range []string{"Title:", "title:", "TITLE:"} {
		s = strings.TrimPrefix(s, label)
	}
	s = strings.Trim(strings.TrimSpace(s), "\"'`*#“”‘’«»")
	s = strings.TrimRightFunc(s, func(r rune) bool { return r == '.' || r == '。' || unicode.IsSpace(r) })
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if len(s) > maxTitle {
		cut := clip.Prefix(s, maxTitle-len("…"))
		if i := strings.LastIndexByte(cut, ' '); i > 0 && s[len(cut)] != ' ' {
			cut = cut[:i] // between words
		}
		s = strings.TrimSpace(cut) + "…"
	}
	return s
}
