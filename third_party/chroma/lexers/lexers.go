package lexers

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// GlobalLexerRegistry is the global LexerRegistry of Lexers. The lexers
// written in Go register into it at init; the embedded XML lexers are
// parsed into it on first use of Names, Get, MatchMimeType, Match
// or Analyse, not at init (chat's patch: parsing two hundred XML files cost
// milliseconds at every start of a program that may never highlight).
var GlobalLexerRegistry = chroma.NewLexerRegistry()

var loadOnce sync.Once

// afterLoad run once the embedded lexers are in the registry: the inits
// that give some of them an analyser.
var afterLoad []func()

// loaded is the registry with the embedded lexers in it. They are
// registered before the ones from Go, as they were at init, so where both
// have a name the Go lexer still wins.
func loaded() *chroma.LexerRegistry {
	loadOnce.Do(func() {
		reg := GlobalLexerRegistry
		early := reg.Lexers
		*reg = *chroma.NewLexerRegistry()
		paths, err := fs.Glob(embedded, "embedded/*.xml")
		if err != nil {
			panic(err)
		}
		for _, path := range paths {
			reg.Register(chroma.MustNewXMLLexer(embedded, path))
		}
		for _, lexer := range early {
			reg.Register(lexer)
		}
		for _, f := range afterLoad {
			f()
		}
	})
	return GlobalLexerRegistry
}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	return loaded().Names(withAliases)
}

// Get a Lexer by name, alias or file extension.
//
// Note that this if there isn't an exact match on name or alias, this will
// call Match(), so it is not efficient.
func Get(name string) chroma.Lexer {
	return loaded().Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	return loaded().MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so it's not
// particularly efficient.
func Match(filename string) chroma.Lexer {
	return loaded().Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
	return loaded().Analyse(text)
}

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{`.+`, chroma.Text, nil},
			{`\n`, chroma.Text, nil},
		},
	}
}

// Fallback lexer if no other is found.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
