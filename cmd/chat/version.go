package main

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

// version is chat's version: the stamped one, else the module's (go
// install …@v1.2.3), else "devel".
func version() string {
	if stampVersion != "" {
		return stampVersion
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// versionLine is what chat version and chat --version print: the
// version, and the commit and date where they are known (stamped, or
// recorded by go build in a git checkout).
func versionLine() string {
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
	line := "chat " + version()
	if len(extra) > 0 {
		line += " (" + strings.Join(extra, ", ") + ")"
	}
	return line
}
