package trace

import "testing"

func TestToolResponseResult(t *testing.T) {
	for _, c := range []struct {
		r    ToolResponse
		want string
	}{
		{ToolResponse{Output: "8080\n"}, "8080\n"},
		{ToolResponse{Output: "x", Evidence: "read_file:config/a.yaml → port: 8080"}, "port: 8080"},
		{ToolResponse{Output: "x", Evidence: "refused: outside the work dir"}, "refused: outside the work dir"},
		{ToolResponse{}, ""},
	} {
		if got := c.r.Result(); got != c.want {
			t.Errorf("%+v.Result() = %q, want %q", c.r, got, c.want)
		}
	}
}
