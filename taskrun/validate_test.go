package taskrun

import "testing"

// TestConfigValidate: the policies and the bound a Config names are checked before
// anything is opened, each error naming the field as a flag spells it.
func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, ""},
		{Config{CautionPolicy: CautionLog, MemoryCorrupt: MemoryCorruptSkip, MaxIterations: 3}, ""},
		{Config{CautionPolicy: "ask"}, `caution "ask": expected refuse, allow or log`},
		{Config{MemoryCorrupt: "repair"}, `memory-corrupt "repair": expected refuse or skip`},
		{Config{MaxIterations: -1}, "max-iterations -1: expected at least 1, or 0 for the engine's default"},
	} {
		err := c.cfg.Validate()
		if got := errText(err); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.cfg, got, c.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
