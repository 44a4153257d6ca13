package oaitest

import (
	"fmt"
	"strings"
	"time"
)

// Scripted is a rule-based stand-in for a model, used by `make demo` and by
// tests that run the real binary. It is not clever and says so:
//
//   - a request without tools (the synthesizer's) gets a summary of the
//     tool results in its transcript;
//   - a question mentioning "loop" calls list_files again and again;
//   - a question mentioning files, the repo or the directory calls
//     list_files once, then answers from the listing;
//   - a question mentioning "research" hands a task to the researcher
//     persona (DemoResearcher) through the agent tool; the researcher
//     lists the files and reports, and the answer quotes its report;
//   - anything else gets a short Markdown answer about the demo.
//
// DemoResearcher is the instructions of the demo's researcher persona.
const DemoResearcher = "You are the researcher: you look at the working directory and report what you find."

func Scripted(delay time.Duration) func(Request) Reply {
	return func(req Request) Reply {
		last := req.Messages[len(req.Messages)-1]
		question := strings.ToLower(lastUser(req))
		callID := fmt.Sprintf("call_demo_%d", req.Index)
		listFiles := Answer{Delay: delay, Text: "Let me look at the files.", Calls: []Call{{ID: callID, Name: "list_files", Args: `{"path": ".", "depth": 1}`}}}
		researcher := strings.HasPrefix(req.Messages[0].Text(), DemoResearcher)
		switch {
		case researcher && last.Role == "tool":
			return Answer{Delay: delay, Text: "Report: the working directory holds " + strings.Join(firstFields(last.Text(), 4), ", ") + ", …: a Go project."}
		case researcher:
			return listFiles
		case strings.Contains(question, "research") && last.Role == "tool":
			return Answer{Delay: delay, Text: "My researcher looked, so I did not have to:\n\n> " + last.Text() + "\n\n(The researcher is a sub-agent with its own history and tools.)"}
		case strings.Contains(question, "research") && slicesHasTool(req, "agent"):
			return Answer{Delay: delay, Text: "I will ask the researcher.", Calls: []Call{{ID: callID, Name: "agent",
				Args: `{"name": "researcher", "task": "List the working directory and say what kind of project it is."}`}}}
		case len(req.Tools) == 0 && strings.Contains(lastUser(req), "<transcript>"):
			n := strings.Count(lastUser(req), "[tool result")
			return Answer{Delay: delay, Text: fmt.Sprintf("**Synthesized answer** (scripted demo): the agent ran out of steps after %d tool results. "+
				"From the listings it gathered, this directory holds a Go project; ask a narrower question to get a precise answer.", n)}
		case last.Role == "tool" && strings.Contains(question, "loop"):
			return listFiles
		case last.Role == "tool":
			listing := strings.Fields(last.Text())
			if len(listing) > 6 {
				listing = listing[:6]
			}
			return Answer{Delay: delay, Text: "I listed the working directory. The first entries are:\n\n- `" + strings.Join(listing, "`\n- `") +
				"`\n\nThat is all this scripted demo model can tell you."}
		case strings.Contains(question, "loop"), strings.Contains(question, "file"), strings.Contains(question, "repo"), strings.Contains(question, "director"):
			return listFiles
		}
		return Answer{Delay: delay, Reasoning: "The person said hello; the script answers with the demo text.", Text: "Hello! I am the **scripted demo model** of `chat`: no real model, no API key, fixed answers.\n\n" +
			"Ask me about the *files* here to watch a tool call, or ask me to *loop* to watch the step budget end in a synthesized answer."}
	}
}

func firstFields(s string, n int) []string {
	f := strings.Fields(s)
	return f[:min(n, len(f))]
}

func slicesHasTool(req Request, name string) bool {
	for _, t := range req.ToolNames() {
		if t == name {
			return true
		}
	}
	return false
}

func lastUser(req Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Text()
		}
	}
	return ""
}
