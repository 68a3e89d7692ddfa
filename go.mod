module github.com/agentspine/spine

go 1.26.8

require (
	github.com/expr-lang/expr v1.17.8
	github.com/looplab/fsm v1.0.3
	github.com/rogpeppe/go-internal v1.16.0
	github.com/sashabaranov/go-openai v1.43.0
	github.com/syndtr/goleveldb v1.0.0
	golang.org/x/sys v0.26.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/golang/snappy v0.0.0-20180518054509-2e65f85255db // indirect
	golang.org/x/tools v0.26.0 // indirect
)
