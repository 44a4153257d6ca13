package lexers

// HTML lexer.
var HTML = embeddedLexer("embedded/html.xml", nil)
