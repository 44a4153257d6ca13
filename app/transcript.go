package app

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

// WriteTranscript prints a session as plain text, control bytes inert.
func WriteTranscript(w io.Writer, msgs []session.Message) {
	for _, m := range msgs {
		if m.Rewound && m.Role == session.RoleUser {
			fmt.Fprint(w, "[rewound: not sent again]\n")
		}
		switch m.Role {
		case session.RoleSystem:
			fmt.Fprintf(w, "[system] %s\n\n", listener.VisibleString(m.Content))
		case session.RoleUser:
			mode := ""
			if PlannedIn(m) {
				mode = "[plan mode] "
			}
			fmt.Fprintf(w, "› %s%s\n", mode, listener.VisibleString(m.Content))
			for _, f := range m.Files {
				fmt.Fprintf(w, "  [attached: %s]\n", listener.VisibleString(attachmentName(f)))
			}
			fmt.Fprintln(w)
		case session.RoleAssistant:
			if m.Content != "" {
				label := ""
				if m.Synthesized {
					label = "(synthesized) "
				}
				if m.Interrupted {
					label = "(interrupted) "
				}
				fmt.Fprintf(w, "%s%s\n\n", label, listener.VisibleString(m.Content))
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(w, "→ %s %s\n", c.Name, listener.VisibleString(c.Arguments))
			}
		case session.RoleTool:
			if m.IsError() {
				fmt.Fprintf(w, "  ✗ %s\n\n", clip.FirstLine(listener.VisibleString(m.Content)))
			} else {
				fmt.Fprintf(w, "  ✓ %d bytes\n\n", len(m.Content))
			}
		case session.RoleSummary:
			fmt.Fprintf(w, "⇣ [compacted: %s]\n%s\n\n", compactionNote(m), listener.VisibleString(m.Content))
		}
	}
}

// attachmentName names an attached file: its name, type and size.
func attachmentName(f session.FilePart) string {
	name := f.Filename
	if name == "" {
		name = "(unnamed)"
	}
	if f.URL != "" && len(f.Data) == 0 {
		return fmt.Sprintf("%s (%s, %s)", name, f.MediaType, f.URL)
	}
	return fmt.Sprintf("%s (%s, %d bytes)", name, f.MediaType, len(f.Data))
}

// WriteMarkdown writes a session as Markdown, the rewound messages marked.
func WriteMarkdown(w io.Writer, l session.Loaded) {
	fmt.Fprintf(w, "# Session %s\n\n_%s · %s_\n\n", l.Header.ID, l.Header.Created.Format(time.RFC3339), l.Header.Dir)
	for _, m := range session.WithRewound(l.Messages, l.Rewound) {
		switch m.Role {
		case session.RoleSystem:
			fmt.Fprintf(w, "## System\n\n%s\n\n", m.Content)
		case session.RoleUser:
			heading := "User"
			if PlannedIn(m) {
				heading = "User (plan mode)"
			}
			fmt.Fprintf(w, "## %s\n\n%s\n\n", heading, m.Content)
			for _, f := range m.Files {
				fmt.Fprintf(w, "_attached: %s_\n\n", attachmentName(f))
			}
		case session.RoleAssistant:
			if m.Content != "" {
				fmt.Fprintf(w, "## Assistant\n\n%s\n\n", m.Content)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(w, "**Tool call** `%s`\n\n```json\n%s\n```\n\n", c.Name, c.Arguments)
			}
		case session.RoleTool:
			fmt.Fprintf(w, "**Tool result** `%s`\n\n```\n%s\n```\n\n", m.Name, strings.TrimRight(m.Content, "\n"))
		case session.RoleSummary:
			fmt.Fprintf(w, "## Compacted\n\n_%s_\n\n%s\n\n", compactionNote(m), m.Content)
		}
	}
}

// compactionNote says what a summary record stands for: from here on, the
// model was sent the summary instead of what precedes it.
func compactionNote(m session.Message) string {
	c := session.Compaction{}
	if m.Compaction != nil {
		c = *m.Compaction
	}
	note := fmt.Sprintf("the %d messages above were sent as this summary from here on (~%d → ~%d tokens)", c.Messages, c.Before, c.After)
	switch {
	case c.Dropped:
		note = fmt.Sprintf("the %d messages above were left out of what is sent from here on, unsummarized: no summary fitted (~%d → ~%d tokens)", c.Messages, c.Before, c.After)
	case c.Cut:
		note += "; the summary was cut to fit"
	}
	if c.Instructions != "" {
		note += "; asked to: " + listener.VisibleString(c.Instructions)
	}
	return note
}
