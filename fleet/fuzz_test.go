package fleet

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzRunFigures: any bytes as a stored trace give figures or an error, never a panic,
// and figures are never negative.
func FuzzRunFigures(f *testing.F) {
	f.Add([]byte(`{"seq":1,"kind":"exchange","name":"llm:R3","usage":{"total_tokens":12},"duration_ms":40}` + "\n" +
		`{"seq":2,"kind":"message","from":"R4a","to":"R3","type":"CorrectionSignal","payload":{}}` + "\n" +
		`{"seq":3,"kind":"message","from":"R3","to":"R4a","type":"ExecutionResult","payload":{"status":"failed"}}` + "\n" +
		`{"seq":4,"kind":"audit","finding":{"kind":"x","severity":"warning","message":"m","evidence":[1]}}`))
	f.Add([]byte("not json\n"))
	f.Add([]byte(`{"kind":"message","type":"SubTaskOutcome","payload":"a string"}`))
	f.Fuzz(func(t *testing.T, trace []byte) {
		roles, _, err := RunFigures("run", time.Time{}, trace)
		if err != nil {
			return
		}
		for _, r := range roles {
			if r.Calls < 0 || r.Results < r.Failed || r.Failed < 0 || r.Corrections < 0 {
				t.Fatalf("figures %+v", r)
			}
		}
	})
}

// FuzzRedactURL: a URL that carries a password is never shown with it.
func FuzzRedactURL(f *testing.F) {
	f.Add("nats://alice:s3cret@host:4222")
	f.Add("tls://tok@a:1,nats://b:2")
	f.Add("host:4222")
	f.Fuzz(func(t *testing.T, raw string) {
		shown := RedactURL(raw)
		for _, p := range strings.Split(raw, ",") {
			u, err := url.Parse(strings.TrimSpace(p))
			if err != nil || u.User == nil || u.Host == "" {
				continue
			}
			if pw, ok := u.User.Password(); ok && len(pw) > 3 && strings.Contains(shown, pw) && !strings.Contains(u.Host+u.Path, pw) {
				t.Fatalf("%q shown as %q keeps its password", raw, shown)
			}
		}
	})
}
