package lexers

import (
	"embed"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// GlobalLexerRegistry is the global LexerRegistry of Lexers. It is filled
// on the first call of Names, Get, MatchMimeType, Match or Analyse, not at
// init (chat's patch: parsing two hundred XML files and registering the
// lexers written in Go cost milliseconds at every start of a program that
// may never highlight): first the embedded XML lexers, then the ones
// written in Go, in the order they registered, so where both have a name
// the Go lexer still wins, as upstream.
var GlobalLexerRegistry = chroma.NewLexerRegistry()

var (
	loadOnce sync.Once
	loadDone atomic.Bool
	// registered are the lexers Register was given before the load.
	registered []chroma.Lexer
)

// afterLoad run once the lexers are in the registry: the inits that give
// some of them an analyser.
var afterLoad []func()

// loaded is the registry with every lexer in it.
func loaded() *chroma.LexerRegistry {
	loadOnce.Do(func() {
		reg := GlobalLexerRegistry
		paths, err := fs.Glob(embedded, "embedded/*.xml")
		if err != nil {
			panic(err)
		}
		for _, path := range paths {
			reg.Register(chroma.MustNewXMLLexer(embedded, path))
		}
		for _, lexer := range registered {
			reg.Register(lexer)
		}
		registered = nil
		for _, f := range afterLoad {
			f()
		}
		loadDone.Store(true)
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

// Register a Lexer with the global registry: at once once the registry is
// loaded, and with the others when it is before that.
func Register(lexer chroma.Lexer) chroma.Lexer {
	if !loadDone.Load() {
		registered = append(registered, lexer)
		return lexer
	}
	return GlobalLexerRegistry.Register(lexer)
}

// embeddedLexer is the embedded XML lexer at path, parsed on its first use,
// with config in place of its own if one is given (chat's patch: the
// lexers written in Go around an embedded one parsed it at init).
func embeddedLexer(path string, config *chroma.Config) chroma.Lexer {
	return &xmlLexer{sync.OnceValue(func() *chroma.RegexLexer {
		lexer := chroma.MustNewXMLLexer(embedded, path)
		if config != nil {
			lexer.SetConfig(config)
		}
		return lexer
	})}
}

type xmlLexer struct{ lexer func() *chroma.RegexLexer }

func (x *xmlLexer) Config() *chroma.Config { return x.lexer().Config() }

func (x *xmlLexer) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	return x.lexer().Tokenise(options, text)
}

func (x *xmlLexer) SetRegistry(registry *chroma.LexerRegistry) chroma.Lexer {
	x.lexer().SetRegistry(registry)
	return x
}

func (x *xmlLexer) SetAnalyser(analyser func(text string) float32) chroma.Lexer {
	x.lexer().SetAnalyser(analyser)
	return x
}

func (x *xmlLexer) AnalyseText(text string) float32 { return x.lexer().AnalyseText(text) }

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
