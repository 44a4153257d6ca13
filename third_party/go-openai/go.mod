module github.com/sashabaranov/go-openai

go 1.20
