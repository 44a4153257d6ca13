module github.com/go-git/go-git/v5

go 1.24

require gopkg.in/check.v1 v1.0.0-20201130134442-10cb98267c6c

require (
	github.com/kr/pretty v0.2.1 // indirect
	github.com/kr/text v0.1.0 // indirect
)
