package llm

import (
	"encoding/json"
	"fmt"
	"github.com/agentspine/spine/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

func TestLoadConfigSourceErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  Sources
		want string
	}{
		{"bad env timeout", Sources{Getenv: envOf(EnvModel, "m", EnvTimeout, "later")}, `environment SPINE_LLM_TIMEOUT="later": want a positive duration`},
		{"bad env attempts", Sources{Getenv: envOf(EnvModel, "m", EnvMaxAttempts, "0")}, `environment SPINE_LLM_MAX_ATTEMPTS="0"`},
		{"unknown flag role", Sources{Flags: Overrides{Model: "m", RoleTiers: map[RoleName]string{"R7": "1", "R5": "2"}}}, `flags: unknown role "R5"`},
		{"missing file", Sources{File: filepath.Join(t.TempDir(), "none.yaml")}, "none.yaml: no such file"},
		{"env tier makes R4b weaker", Sources{Getenv: envOf(EnvModel, "m", "SPINE_MODEL_R2", "big", "SPINE_TIER_R2", "3")}, `R4b's model tier ("m", tier unset, counts as 0) is below R2's ("big", tier 3)`},
		{"same model, same tier", Sources{Getenv: envOf(EnvModel, "m", "SPINE_TIER_R2", "3")}, ""},
		{"bad base URL", Sources{Flags: Overrides{Model: "m", BaseURL: "localhost:8080"}}, `base URL "localhost:8080": want an absolute http(s) URL`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadConfig(tc.src)
			if tc.want == "" {
				if err != nil {
					t.Errorf("LoadConfig: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("LoadConfig = %v, want %q", err, tc.want)
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
