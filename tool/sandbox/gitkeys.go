package sandbox

import (
	"path"
	"strings"
)

// gitSafeKeys are the config keys a boxed command may add to a
// repository: none of them makes git run a program, or read config or
// hooks from elsewhere. Everything else a command adds is undone. It is
// an allow list on purpose: a block list is always one key behind git
// (trailer.*.command, gpg.ssh.defaultKeyCommand, hook.*.command came one
// release at a time). A "*" stands for one subsection of any name.
var gitSafeKeys = []string{
	// what git init, clone and the porcelain write
	"core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
	"core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
	"core.safecrlf", "core.quotepath", "core.sharedrepository", "core.compression",
	"core.loosecompression", "core.bigfilethreshold", "core.abbrev", "core.whitespace",
	"core.checkstat", "core.trustctime", "core.splitindex", "core.untrackedcache",
	"core.commitgraph", "core.multipackindex", "core.longpaths", "core.excludesfile",
	"core.attributesfile", "core.commentchar", "core.preloadindex", "core.packedgitlimit",
	"extensions.objectformat", "extensions.worktreeconfig", "extensions.preciousobjects",
	"extensions.partialclone", "extensions.refstorage",
	"remote.*.url", "remote.*.pushurl", "remote.*.fetch", "remote.*.push", "remote.*.tagopt",
	"remote.*.prune", "remote.*.prunetags", "remote.*.mirror", "remote.*.skipdefaultupdate",
	"remote.*.promisor", "remote.*.partialclonefilter",
	"branch.*.remote", "branch.*.merge", "branch.*.rebase", "branch.*.pushremote", "branch.*.description",
	"submodule.*.url", "submodule.*.active", "submodule.*.branch", "submodule.active",
	"user.name", "user.email", "author.name", "author.email", "committer.name", "committer.email",
	"init.defaultbranch", "pull.rebase", "pull.ff", "push.default", "push.autosetupremote",
	"fetch.prune", "fetch.prunetags", "fetch.recursesubmodules", "merge.ff", "merge.conflictstyle",
	"rebase.autosquash", "rebase.autostash", "rerere.enabled", "rerere.autoupdate",
	"color.ui", "color.branch", "color.diff", "color.status", "color.interactive",
	"advice.*", "status.showuntrackedfiles", "status.short", "status.branch",
	"diff.renames", "diff.algorithm", "diff.noprefix", "diff.mnemonicprefix", "diff.colormoved",
	"gc.auto", "gc.autodetach", "gc.autopacklimit", "index.version", "feature.manyfiles",
	"protocol.version", "transfer.fsckobjects", "fetch.fsckobjects", "receive.fsckobjects",
	"receive.denycurrentbranch", "pack.windowmemory", "pack.threads", "i18n.commitencoding",
	"i18n.logoutputencoding", "lfs.repositoryformatversion", "maintenance.auto",
}

// gitKeySafe says whether a boxed command may leave key = value in a
// repository's config. key is as git config --list prints it: the
// section and the key lowercased, a subsection as written.
func gitKeySafe(key, value string) bool {
	section, rest, ok := strings.Cut(key, ".")
	if !ok {
		return false
	}
	name := rest
	sub := ""
	if i := strings.LastIndex(rest, "."); i >= 0 {
		sub, name = rest[:i], rest[i+1:]
	}
	form := strings.ToLower(section) + "." + strings.ToLower(name)
	if sub != "" {
		form = strings.ToLower(section) + ".*." + strings.ToLower(name)
	}
	for _, k := range gitSafeKeys {
		if k == form || strings.HasSuffix(k, ".*") && sub == "" && path.Dir(strings.ReplaceAll(k, ".", "/")) == strings.ToLower(section) {
			return urlSafe(form, value)
		}
	}
	return false
}

// urlSafe: an address git would hand to a transport that runs a
// command (ext::, fd::, or any helper named before ::) is not.
func urlSafe(form, value string) bool {
	switch form {
	case "remote.*.url", "remote.*.pushurl", "submodule.*.url":
		return !strings.Contains(value, "::")
	}
	return true
}
