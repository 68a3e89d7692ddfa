package llm

import (
	"errors"
	"maps"
	"strings"
)

// ErrNoEndpoint is LoadEndpointConfig's answer when nothing points at a model: no key, no
// endpoint but OpenAI's default, and no file.
var ErrNoEndpoint = errors.New("no model endpoint is configured")

// HowToConfigure is how to configure an endpoint, for a host to say after ErrNoEndpoint.
const HowToConfigure = `.
  OpenAI:         export OPENAI_API_KEY=... SPINE_MODEL=gpt-4o-mini
  Ollama:         spine run --base-url http://localhost:11434/v1 --model qwen2.5:7b "task"
  vLLM:           spine run --base-url http://localhost:8000/v1 --model <served model name> "task"
  any other OpenAI-compatible server: --base-url (or OPENAI_BASE_URL) and --model (or SPINE_MODEL),
  or a config file (--config FILE) with base_url, api_key, model and per-role models.
To see the loop without a model or a key, run: spine demo (or spine demo --pipeline for every role)`

// LoadEndpointConfig is LoadConfig for a host that must reach a model (spine run, a fleet
// worker). A value that does not load (file, variable or flag) is reported as it is; only
// a configuration read whole with no key and OpenAI's endpoint, or one incomplete without
// a file, is ErrNoEndpoint, which the host answers with how to configure one.
func LoadEndpointConfig(src Sources) (Config, error) {
	cfg, err := LoadConfig(src)
	var incomplete *ValidationError
	if (err == nil || src.File == "" && errors.As(err, &incomplete)) && cfg.APIKey == "" &&
		strings.TrimRight(cfg.BaseURL, "/") == DefaultBaseURL {
		return cfg, ErrNoEndpoint
	}
	return cfg, err
}

// With is c with the flags' layer o applied once more and validated, as LoadConfig would
// give with o as its flags, without reading the file or the environment again (a fleet
// task's --model over its worker's configuration).
func (c Config) With(o Overrides) (Config, error) {
	c.Roles = maps.Clone(c.Roles)
	if err := applyOverrides(&c, o); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, &ValidationError{Err: err}
	}
	return c, nil
}

// FileSecretValues are the secrets of the configuration file as written (its api_key,
// its base_url's credentials), which the environment or a flag may have overridden but
// which are secrets still; none when no file was read.
func (c Config) FileSecretValues() []string { return c.fileSecrets }
