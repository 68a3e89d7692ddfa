package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/internal/golden"
)

// TestConfigFilesGolden loads every testdata/config/*.yaml, validates it and compares the
// outcome (the summary and each role's resolved model, or the error) with its .golden.
func TestConfigFilesGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "config", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no config files: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			got := describeLoad(LoadConfig(Sources{File: file}))
			goldenPath := strings.TrimSuffix(file, ".yaml") + ".golden"
			golden.Check(t, goldenPath, []byte(got), *rewrite)
		})
	}
}

func describeLoad(cfg Config, err error) string {
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	b.WriteString(cfg.String() + "\n")
	for _, r := range Roles {
		res, err := cfg.For(r)
		if err != nil {
			fmt.Fprintf(&b, "%s: error %v\n", r, err)
			continue
		}
		fmt.Fprintf(&b, "%s: model %q tier %q rank %d\n", r, res.Model, res.Tier, res.Rank)
	}
	return b.String()
}

func TestLoadConfigLayerOrder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "spine.yaml")
	yaml := "base_url: http://file/v1\nmodel: file-model\ntimeout: 10s\nmax_attempts: 2\nroles:\n  R2: {model: file-r2, tier: 1}\n  R4b: {model: file-r4b, tier: 1}\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }

	cases := []struct {
		name  string
		src   Sources
		env   map[string]string
		check func(Config) string
	}{
		{
			name:  "defaults only",
			src:   Sources{Flags: Overrides{Model: "m"}},
			check: func(c Config) string { return c.BaseURL + " " + c.Timeout.String() + fmt.Sprint(" ", c.MaxAttempts) },
		},
		{
			name: "file over defaults",
			src:  Sources{File: file},
			check: func(c Config) string {
				return c.BaseURL + " " + c.Model + " " + c.Timeout.String() + fmt.Sprint(" ", c.MaxAttempts)
			},
		},
		{
			name: "environment over file",
			src:  Sources{File: file, Getenv: getenv},
			env: map[string]string{EnvBaseURL: "http://env/v1", EnvModel: "env-model", EnvAPIKey: testKey,
				EnvTimeout: "20s", EnvMaxAttempts: "3", "SPINE_MODEL_R4B": "env-r4b", "SPINE_TIER_R4B": "2"},
			check: func(c Config) string {
				r, _ := c.For(R4b)
				return c.BaseURL + " " + c.Model + " " + c.Timeout.String() + fmt.Sprint(" ", c.MaxAttempts, " ", r.Model, " ", r.Rank, " ", c.APIKey.Reveal() == testKey)
			},
		},
		{
			name: "flags over environment",
			src: Sources{File: file, Getenv: getenv, Flags: Overrides{BaseURL: "http://flag/v1", Model: "flag-model",
				Timeout: 30 * time.Second, MaxAttempts: 4, RoleModels: map[RoleName]string{R2: "flag-r2"}, RoleTiers: map[RoleName]string{R4b: "5"}}},
			env: map[string]string{EnvBaseURL: "http://env/v1", EnvModel: "env-model", EnvTimeout: "20s"},
			check: func(c Config) string {
				r2, _ := c.For(R2)
				r4b, _ := c.For(R4b)
				return c.BaseURL + " " + c.Model + " " + c.Timeout.String() + fmt.Sprint(" ", c.MaxAttempts, " ", r2.Model, " ", r2.Rank, " ", r4b.Model, " ", r4b.Rank)
			},
		},
	}
	want := []string{
		"https://api.openai.com/v1 2m0s 4",
		"http://file/v1 file-model 10s 2",
		"http://env/v1 env-model 20s 3 env-r4b 2 true",
		"http://flag/v1 flag-model 30s 4 flag-r2 1 file-r4b 5",
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clear(env)
			for k, v := range tc.env {
				env[k] = v
			}
			cfg, err := LoadConfig(tc.src)
			if err != nil {
				t.Fatalf("LoadConfig: %v", err)
			}
			if got := tc.check(cfg); got != want[i] {
				t.Errorf("got %q, want %q", got, want[i])
			}
		})
	}
}

// TestLoadConfigErrors: each bad environment variable, file value or flag is reported as
// itself, naming it, the value and what was expected (a *SettingError), and only a
// configuration that read but does not fit together is a *ValidationError.
func TestLoadConfigErrors(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	named := file("named.yaml", "model: m\ntiers: [a, b]\n")
	badFile := file("bad.yaml", "model: m\ntimeout: 90\n")
	keyInURL := file("key.yaml", "base_url: ftp://"+testKey+"@host/v1\napi_key: "+testKey+"\nmodel: m\n")
	const (
		setting = "setting"
		invalid = "validation"
		other   = "other"
	)
	for _, tc := range []struct {
		name string
		src  Sources
		want string // the exact error text; "" for none
		kind string
	}{
		{"timeout without a unit", Sources{Getenv: envOf(EnvModel, "m", EnvTimeout, "120")},
			`SPINE_LLM_TIMEOUT="120": expected a duration with a unit, e.g. 120s or 2m`, setting},
		{"timeout not a duration", Sources{Getenv: envOf(EnvModel, "m", EnvTimeout, "later")},
			`SPINE_LLM_TIMEOUT="later": expected a duration with a unit, e.g. 120s or 2m`, setting},
		{"timeout zero", Sources{Getenv: envOf(EnvModel, "m", EnvTimeout, "0s")},
			`SPINE_LLM_TIMEOUT="0s": expected a positive duration, e.g. 120s or 2m`, setting},
		{"timeout negative", Sources{Getenv: envOf(EnvModel, "m", EnvTimeout, "-5s")},
			`SPINE_LLM_TIMEOUT="-5s": expected a positive duration, e.g. 120s or 2m`, setting},
		{"attempts a word", Sources{Getenv: envOf(EnvModel, "m", EnvMaxAttempts, "zero")},
			`SPINE_LLM_MAX_ATTEMPTS="zero": expected a positive integer, e.g. 4`, setting},
		{"attempts zero", Sources{Getenv: envOf(EnvModel, "m", EnvMaxAttempts, "0")},
			`SPINE_LLM_MAX_ATTEMPTS="0": expected a positive integer, e.g. 4`, setting},
		{"base URL without a scheme", Sources{Getenv: envOf(EnvModel, "m", EnvBaseURL, "localhost:11434/v1")},
			`OPENAI_BASE_URL="localhost:11434/v1": expected an absolute http(s) URL, e.g. http://localhost:11434/v1`, setting},
		{"base URL hides the key", Sources{Getenv: envOf(EnvModel, "m", EnvAPIKey, testKey, EnvBaseURL, "ftp://"+testKey+"@host")},
			`OPENAI_BASE_URL="ftp://[REDACTED]@host": expected an absolute http(s) URL, e.g. http://localhost:11434/v1`, setting},
		{"tier with no names declared", Sources{Getenv: envOf(EnvModel, "m", EnvTier, "big")},
			`SPINE_TIER="big": expected a non-negative integer (no tier names are declared under tiers)`, setting},
		{"role tier not among the file's names", Sources{File: named, Getenv: envOf("SPINE_TIER_R2", "c")},
			`SPINE_TIER_R2="c": expected a non-negative integer or one of [a, b]`, setting},
		{"role tier negative", Sources{Getenv: envOf(EnvModel, "m", "SPINE_TIER_R4B", "-1")},
			`SPINE_TIER_R4B="-1": expected a non-negative integer (no tier names are declared under tiers)`, setting},
		{"role tier named in the file", Sources{File: named, Getenv: envOf(EnvTier, "b", "SPINE_TIER_R2", "b")}, "", ""},
		{"the file is read before the environment", Sources{File: badFile, Getenv: envOf(EnvTimeout, "later")},
			badFile + `:2:10: timeout="90": expected a duration with a unit, e.g. 120s or 2m`, setting},
		{"the environment is not masked by a good file", Sources{File: named, Getenv: envOf(EnvMaxAttempts, "many")},
			`SPINE_LLM_MAX_ATTEMPTS="many": expected a positive integer, e.g. 4`, setting},
		{"a key in the file's URL is not shown", Sources{File: keyInURL},
			keyInURL + `:1:11: base_url="ftp://[REDACTED]@host/v1": expected an absolute http(s) URL, e.g. http://localhost:11434/v1`, setting},
		{"flag base URL", Sources{Flags: Overrides{Model: "m", BaseURL: "localhost:8080"}},
			`--base-url="localhost:8080": expected an absolute http(s) URL, e.g. http://localhost:11434/v1`, setting},
		{"unknown flag role", Sources{Flags: Overrides{Model: "m", RoleTiers: map[RoleName]string{"R7": "1", "R5": "2"}}},
			`llm config: flags: unknown role "R5"; want one of R1, R2, R3, R4a, R4b`, other},
		{"missing file", Sources{File: filepath.Join(dir, "none.yaml")},
			"llm config: open " + filepath.Join(dir, "none.yaml") + ": no such file or directory", other},
		{"nothing configured", Sources{Getenv: envOf()},
			"llm config: role R1 has no model: set a default model (model:, SPINE_MODEL, --model) or one for the role\n" +
				"role R2 has no model: set a default model (model:, SPINE_MODEL, --model) or one for the role\n" +
				"role R3 has no model: set a default model (model:, SPINE_MODEL, --model) or one for the role\n" +
				"role R4a has no model: set a default model (model:, SPINE_MODEL, --model) or one for the role\n" +
				"role R4b has no model: set a default model (model:, SPINE_MODEL, --model) or one for the role", invalid},
		{"env tier makes R4b weaker", Sources{Getenv: envOf(EnvModel, "m", "SPINE_MODEL_R2", "big", "SPINE_TIER_R2", "3")},
			`llm config: R4b's model tier ("m", tier unset, counts as 0) is below R2's ("big", tier 3): the meta-validator must be at least as capable as the planner it checks`, invalid},
		{"same model, same tier", Sources{Getenv: envOf(EnvModel, "m", "SPINE_TIER_R2", "3")}, "", ""},
		{"empty variables are unset", Sources{Getenv: envOf(EnvModel, "m", EnvTimeout, "", EnvMaxAttempts, "", EnvBaseURL, "")}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadConfig(tc.src)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("LoadConfig error\n got %s\nwant %s", got, tc.want)
			}
			var se *SettingError
			var ve *ValidationError
			kind := ""
			switch {
			case errors.As(err, &se):
				kind = setting
			case errors.As(err, &ve):
				kind = invalid
			case err != nil:
				kind = other
			}
			if kind != tc.kind {
				t.Errorf("error kind %q, want %q", kind, tc.kind)
			}
			if strings.Contains(got, testKey) {
				t.Errorf("the key is in the error: %s", got)
			}
		})
	}
}

func envOf(kv ...string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

func TestConfigNeverShowsKey(t *testing.T) {
	cfg, err := LoadConfig(Sources{Getenv: envOf(EnvAPIKey, testKey, EnvModel, "m")})
	if err != nil {
		t.Fatal(err)
	}
	assertNoKey(t, cfg, &cfg, cfg.String(), cfg.OpenAIOptions(), cfg.APIKey)
	for _, verb := range []string{"%s", "%q", "%x", "%d", "%10v"} {
		assertNoKey(t, fmt.Sprintf(verb, cfg.APIKey))
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"api_key":"[REDACTED]"`) || !strings.Contains(string(b), `"timeout":"2m0s"`) {
		t.Errorf("config JSON = %s", b)
	}
	if empty, _ := json.Marshal(DefaultConfig()); !strings.Contains(string(empty), `"api_key":""`) {
		t.Errorf("an unset key should show as empty: %s", empty)
	}
	if cfg.APIKey.Reveal() != testKey {
		t.Error("Reveal lost the key")
	}
}

// FuzzParseConfigYAML: any file reads or fails without a panic, a bad value names its key
// and what was expected, and what reads can be validated and summarised.
func FuzzParseConfigYAML(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "config", "*.yaml"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfigYAML("f.yaml", data)
		var se *SettingError
		if errors.As(err, &se) && (se.Name == "" || se.Expected == "" || !strings.HasPrefix(se.Where, "f.yaml:")) {
			t.Errorf("setting error without its key, place or expectation: %#v", se)
		}
		if err != nil {
			return
		}
		_ = cfg.Validate()
		_ = cfg.String()
		for _, r := range Roles {
			_, _ = cfg.For(r)
		}
	})
}
