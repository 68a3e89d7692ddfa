// Package llm is the edge between the spine and a language model: a provider-neutral
// ChatModel interface with plain JSON-serialisable request and response types, an
// implementation on go-openai for any OpenAI-compatible endpoint (per-call timeout,
// bounded retries with backoff on 429 / 5xx / timeouts, Retry-After honoured), the model
// configuration per role (R1, R2, R3, R4a, R4b) with the rule that R4b's tier is at least
// R2's, and the parsing of role outputs (think blocks and code fences stripped, the first
// JSON value extracted, decoded strictly and validated with one corrective retry).
//
// It owns talking to the model and turning its text into checked values. It must not
// know any role's prompt or contract type, must not log, and must never let the API key
// reach an error message, a returned struct or a serialised configuration. Sleeping,
// jitter and the clock are injected so that tests never wait and the retry schedule is
// reproducible.
package llm
