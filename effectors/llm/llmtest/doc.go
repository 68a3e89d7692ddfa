// Package llmtest is an OpenAI-compatible chat-completions server for tests: it answers
// from a queue of scripted replies (content, tool calls, error statuses, Retry-After
// headers, stalls) and keeps a log of the requests it received, so that go-openai runs
// for real over HTTP against it.
//
// It owns the wire format of /chat/completions as seen by a server and nothing else. It
// must not import the llm package, so that llm's own tests can use it, and it is only
// for tests: it is a stand-in for an endpoint, never for a model's capability.
package llmtest
