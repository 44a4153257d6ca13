// Package version says which chat this is: the version stamped by `make
// release`, else the module's, with the commit and build date where they
// are known. It reads only the build info; it imports nothing of chat.
package version

import (
	"cmp"
	"runtime/debug"
	"strings"
)

// Stamped by `make release` (-ldflags -X): the release's version, the
// commit it was built from and when.
var (
	stampVersion string
	stampCommit  string
	stampDate    string
)

// Version is chat's version: the stamped one, else the module's (go
// install …@v1.2.3), else "devel".
func Version() string {
	if stampVersion != "" {
		return stampVersion
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// Line is what chat version and chat --version print: the
// version, and the commit and date where they are known (stamped, or
// recorded by go build in a git checkout).
func Line() string {
	commit, date, dirty := stampCommit, stampDate, false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = cmp.Or(commit, s.Value)
			case "vcs.time":
				date = cmp.Or(date, s.Value)
			case "vcs.modified":
				dirty = s.Value == "true" && stampCommit == ""
			}
		}
	}
	var extra []string
	if commit != "" {
		if len(commit) > 12 {
			commit = commit[:12]
		}
		if dirty {
			commit += "+changes"
		}
		extra = append(extra, "commit "+commit)
	}
	if date != "" {
		extra = append(extra, "built "+date)
	}
	line := "chat " + Version()
	if len(extra) > 0 {
		line += " (" + strings.Join(extra, ", ") + ")"
	}
	return line
}
