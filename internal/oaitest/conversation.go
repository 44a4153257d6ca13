package oaitest

import (
	"fmt"
	"regexp"
	"strings"
)

// Talker is a fallback (SetFallback) that plays a model with a long
// tongue, for conversations that outgrow a window:
//
//   - a summarizing request (its last message holds a <transcript>) gets a
//     short summary that names every question it covers, the earlier
//     summary's included ("Summary: asked q1; asked q2; …");
//   - a question containing "USE TOOL" (when tools are offered and no
//     result came back yet) asks for the first tool offered;
//   - any other request gets AnswerBytes bytes of answer that begin
//     "Answer to <question>:".
type Talker struct {
	AnswerBytes int
}

// Reply implements the fallback.
func (t Talker) Reply(req Request) Reply {
	last := req.Messages[len(req.Messages)-1]
	text := last.Text()
	if strings.Contains(text, "<transcript>") {
		return Answer{Text: "Summary: " + strings.Join(coveredQuestions(text), "; "), Piece: 64}
	}
	if last.Role == "user" && strings.Contains(text, "USE TOOL") && len(req.Tools) > 0 {
		return Answer{Calls: []Call{{ID: fmt.Sprintf("call_%d", req.Index), Name: req.Tools[0].Function.Name, Args: `{"path":"."}`}}}
	}
	question := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			question = req.Messages[i].Text()
			break
		}
	}
	head := "Answer to " + firstWords(question, 8) + ": "
	filler := strings.Repeat("lorem ipsum dolor sit amet ", max(t.AnswerBytes-len(head), 0)/27+1)
	return Answer{Text: head + filler[:max(t.AnswerBytes-len(head), 0)], Piece: 256}
}

var (
	earlierAsked = regexp.MustCompile(`asked [^;<\n]+`)
	userEntry    = regexp.MustCompile(`\[user\]\n([^\n]*)`)
)

// coveredQuestions lists what a summarizing request covers: the questions
// of its earlier summary, then those of its transcript.
func coveredQuestions(prompt string) []string {
	var out []string
	if i := strings.Index(prompt, "<summary>"); i >= 0 {
		end := strings.Index(prompt, "</summary>")
		out = append(out, earlierAsked.FindAllString(prompt[i:max(end, i)], -1)...)
	}
	for _, m := range userEntry.FindAllStringSubmatch(prompt, -1) {
		out = append(out, "asked "+firstWords(m[1], 8))
	}
	return out
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// Echoer is a fallback (SetFallback) for the worst summarizer: asked to
// summarize (a <transcript> in the last message), it answers with the
// whole request back, stopped at max_tokens as a server stops a model
// (about four bytes a token); any other request gets an answer of
// AnswerBytes bytes that begins "Answer to <question>:".
type Echoer struct {
	AnswerBytes int
}

// Reply implements the fallback.
func (e Echoer) Reply(req Request) Reply {
	last := req.Messages[len(req.Messages)-1]
	if text := last.Text(); strings.Contains(text, "<transcript>") {
		if req.MaxTokens > 0 && len(text) > req.MaxTokens*4 {
			text = text[:req.MaxTokens*4]
		}
		return Answer{Text: text, Piece: 256}
	}
	return Talker(e).Reply(req)
}
