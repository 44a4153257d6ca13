module github.com/dlclark/regexp2

go 1.21
