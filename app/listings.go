package app

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/llm/pricing"
	"github.com/chatrepl/chat/session"
)

// The tables chat's listing commands print (chat sessions list, chat
// agents list, chat mcp list …): one column layout, whatever asks.

// Table writes a table of head's columns (tab-separated), a row per
// call of row.
func Table(w io.Writer, head string, rows func(row func(...any))) error {
	tw := table(w, head)
	rows(func(cells ...any) {
		for i, c := range cells {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, c)
		}
		fmt.Fprintln(tw)
	})
	return tw.Flush()
}

func table(w io.Writer, head string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, head)
	return tw
}

// WriteSessions lists saved sessions, newest first, as of now.
func WriteSessions(w io.Writer, rows []Listed, now time.Time) error {
	tw := table(w, "ID\tUPDATED\tMSGS\tTOKENS\tCOST\tDIRECTORY\tTITLE")
	for _, s := range rows {
		cost := "-"
		if s.Cost != nil {
			cost = pricing.Format(*s.Cost)
		}
		dir := s.Dir
		if s.Worktree != "" {
			dir += " [worktree " + s.Worktree + "]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\n", session.ShortID(s.ID), session.AgoText(now.Sub(s.Updated)), s.Messages, s.Usage.Total, cost, dir, s.Title)
	}
	return tw.Flush()
}

// WriteAgents lists the named agents with where each comes from
// (AgentSources).
func WriteAgents(w io.Writer, defs map[string]agent.Definition, sources map[string]string) error {
	tw := table(w, "NAME\tFROM\tMODEL\tSTEPS\tTOOLS\tINSTRUCTIONS")
	for _, n := range slices.Sorted(maps.Keys(defs)) {
		def := defs[n]
		tools := []string{"(all)"}
		if len(def.Tools) > 0 {
			tools = nil
			for _, t := range def.Tools {
				tools = append(tools, t.Name)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", n, sources[n], cmp.Or(def.Model, "(default)"), def.MaxSteps.String(), strings.Join(tools, ","), clip.FirstLine(def.Instructions))
	}
	return tw.Flush()
}

// WriteMCPServers lists the configured servers with what connecting them
// found (states by name; a server without one was not checked).
func WriteMCPServers(w io.Writer, servers map[string]config.MCPConfig, states map[string]MCPState) error {
	tw := table(w, "NAME\tTRANSPORT\tCONNECTS\tSTATE\tTOOLS\tPROMPTS\tRESOURCES\tLOGIN\tALLOWED")
	for _, n := range slices.Sorted(maps.Keys(servers)) {
		m := servers[n]
		connects := "when asked"
		if m.Eager {
			connects = "at start"
		}
		state, tools, prompts, resources, login := "not checked", "-", "-", "-", "-"
		if st, ok := states[n]; ok {
			state, login = clip.FirstLine(st.Status), st.Login
			if st.Status == "connected" {
				tools, prompts, resources = strconv.Itoa(len(st.Tools)), strconv.Itoa(len(st.Prompts)), strconv.Itoa(len(st.Resources))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n, m.Transport(), connects, state, tools, prompts, resources, login, strings.Join(m.Allow, ","))
	}
	return tw.Flush()
}

// WriteMCPPrompts and WriteMCPResources list a connected server's
// prompts (as the REPL's commands) and resources (as mentions).
func WriteMCPPrompts(w io.Writer, prompts []MCPPrompt) error {
	tw := table(w, "COMMAND\tARGUMENTS\tDESCRIPTION")
	for _, p := range prompts {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Command(), p.Usage(), clip.FirstLine(cmp.Or(p.Description, p.Title)))
	}
	return tw.Flush()
}

func WriteMCPResources(w io.Writer, resources []MCPResource) error {
	tw := table(w, "MENTION\tTYPE\tTITLE")
	for _, r := range resources {
		kind := cmp.Or(r.MIMEType, "-")
		if r.Template {
			kind = "template"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Mention(), kind, clip.FirstLine(r.Label()))
	}
	return tw.Flush()
}
