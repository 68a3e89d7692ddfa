// Package secrets keeps credentials out of what the spine records and what it sends to a
// model. A Scrubber is built once per run from the values to hide (the API key, other
// secret-looking values of the configuration, the values of secret-looking environment
// variables) and replaces them in text with "[REDACTED]": verbatim, in the encodings a
// command or a model is likely to produce (base64 in both alphabets and at any alignment
// in a longer stream, hex, URL and JSON escaping), and as partial echoes of key-like
// values (a run of 12 or more of their characters, or "sk-abc…xyz" style masking).
//
// It owns the list of name markers that make an environment variable look secret, so the
// sandbox and the scrubber agree on it. It must stay a leaf: the standard library only,
// no I/O, no clock, no randomness; the same values always give the same output.
package secrets
