package lexers

import (
	"regexp"
)

func init() { // nolint: gochecknoinits
	// chat's patch: the lexers are loaded, and this compiled, on first use.
	afterLoad = append(afterLoad, func() {
		zoneAnalyserRe := regexp.MustCompile(`(?m)^@\s+IN\s+SOA\s+`)
		GlobalLexerRegistry.Get("dns").SetAnalyser(func(text string) float32 {
			if zoneAnalyserRe.FindString(text) != "" {
				return 1.0
			}
			return 0.0
		})
	})
}
