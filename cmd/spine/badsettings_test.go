package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunBadSettingCallsNoModel: a run whose configuration has a bad value stops with a
// usage error naming it, before any request reaches the endpoint and before a trace is
// created, though the endpoint, key and models are otherwise configured.
func TestRunBadSettingCallsNoModel(t *testing.T) {
	for _, tc := range []struct {
		env, value, want string
	}{
		{"SPINE_LLM_TIMEOUT", "120", `spine run: SPINE_LLM_TIMEOUT="120": expected a duration with a unit, e.g. 120s or 2m`},
		{"SPINE_LLM_MAX_ATTEMPTS", "zero", `spine run: SPINE_LLM_MAX_ATTEMPTS="zero": expected a positive integer, e.g. 4`},
		{"SPINE_TIER_R4B", "huge", `spine run: SPINE_TIER_R4B="huge": expected a non-negative integer (no tier names are declared under tiers)`},
	} {
		t.Run(tc.env, func(t *testing.T) {
			calls := 0
			ar := newAcceptRun(t, func(string) { calls++ })
			t.Setenv(tc.env, tc.value)
			t.Setenv("SPINE_TRACE_DIR", filepath.Join(ar.dir, "traces"))
			var out, errOut bytes.Buffer
			code := Run(context.Background(), []string{"run", "What port does the app use?", "--config", ar.cfg,
				"--workdir", filepath.Join(ar.dir, "work"), "--trace", ar.trace}, strings.NewReader(""), &out, &errOut)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if first, _, _ := strings.Cut(errOut.String(), "\n"); first != tc.want {
				t.Errorf("stderr starts %q, want %q", first, tc.want)
			}
			if calls != 0 {
				t.Errorf("%d model call(s) made", calls)
			}
			for _, p := range []string{ar.trace, filepath.Join(ar.dir, "traces")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was created", p)
				}
			}
			if strings.Contains(errOut.String(), runTestKey) || strings.Contains(out.String(), runTestKey) {
				t.Error("the key was printed")
			}
		})
	}
}
