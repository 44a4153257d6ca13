package tui

import (
	"charm.land/lipgloss/v2"
)

// styles is built once from the palette and passed down; render paths use
// these and never make styles of their own.
type styles struct {
	user, userMid, dim, thinking    lipgloss.Style
	toolName, toolArgs, toolOK, err lipgloss.Style
	notice, warn, cancelled         lipgloss.Style
	inject, after, status, statusHi lipgloss.Style
	prompt, hint, synthesized       lipgloss.Style
}

func newStyles(dark, noColor bool) styles {
	if noColor {
		plain := lipgloss.NewStyle()
		bold := plain.Bold(true)
		return styles{user: bold, userMid: bold, dim: plain, thinking: plain, toolName: bold, toolArgs: plain,
			toolOK: plain, err: bold, notice: plain, warn: bold, cancelled: bold, inject: plain, after: plain,
			status: plain, statusHi: bold, prompt: bold, hint: plain, synthesized: bold}
	}
	ld := lipgloss.LightDark(dark)
	gray := ld(lipgloss.Color("#8a8a8a"), lipgloss.Color("#6c6c6c"))
	accent := ld(lipgloss.Color("#0066cc"), lipgloss.Color("#5fafff"))
	green := ld(lipgloss.Color("#007a00"), lipgloss.Color("#5fd75f"))
	red := ld(lipgloss.Color("#c00000"), lipgloss.Color("#ff5f5f"))
	yellow := ld(lipgloss.Color("#8a6d00"), lipgloss.Color("#ffd75f"))
	purple := ld(lipgloss.Color("#7a3fbf"), lipgloss.Color("#af87ff"))
	s := lipgloss.NewStyle()
	return styles{
		user:        s.Foreground(accent).Bold(true),
		userMid:     s.Foreground(purple).Bold(true),
		dim:         s.Foreground(gray),
		thinking:    s.Foreground(gray).Italic(true),
		toolName:    s.Foreground(accent).Bold(true),
		toolArgs:    s.Foreground(gray),
		toolOK:      s.Foreground(green),
		err:         s.Foreground(red).Bold(true),
		notice:      s.Foreground(gray),
		warn:        s.Foreground(yellow).Bold(true),
		cancelled:   s.Foreground(yellow),
		inject:      s.Foreground(purple),
		after:       s.Foreground(accent),
		status:      s.Foreground(gray),
		statusHi:    s.Foreground(accent),
		prompt:      s.Foreground(accent).Bold(true),
		hint:        s.Foreground(gray).Italic(true),
		synthesized: s.Foreground(yellow).Bold(true),
	}
}
