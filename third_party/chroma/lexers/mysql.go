package lexers

import (
	"regexp"
)

func init() { // nolint: gochecknoinits
	// chat's patch: the lexers are loaded, and these compiled, on first use.
	afterLoad = append(afterLoad, func() {
		backtick := regexp.MustCompile("`[a-zA-Z_]\\w*`")
		bracket := regexp.MustCompile(`\[[a-zA-Z_]\w*\]`)
		GlobalLexerRegistry.Get("mysql").
			SetAnalyser(func(text string) float32 {
				nameBetweenBacktickCount := len(backtick.FindAllString(text, -1))
				nameBetweenBracketCount := len(bracket.FindAllString(text, -1))

				var result float32

				// Same logic as above in the TSQL analysis.
				dialectNameCount := nameBetweenBacktickCount + nameBetweenBracketCount
				if dialectNameCount >= 1 && nameBetweenBacktickCount >= (2*nameBetweenBracketCount) {
					// Found at least twice as many `name` as [name].
					result += 0.5
				} else if nameBetweenBacktickCount > nameBetweenBracketCount {
					result += 0.2
				} else if nameBetweenBacktickCount > 0 {
					result += 0.1
				}

				return result
			})
	})
}
