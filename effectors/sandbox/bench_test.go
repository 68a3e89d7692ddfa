//go:build linux

package sandbox

import (
	"context"
	"testing"
)

// BenchmarkShellCall is what one shell call costs end to end (`true`), in the bubblewrap
// jail and unconfined: the price of the isolation.
func BenchmarkShellCall(b *testing.B) {
	for _, jc := range []struct {
		name string
		jail func(b *testing.B) Jail
	}{
		{"bubblewrap", func(b *testing.B) Jail {
			j, err := NewBubblewrap(BubblewrapOptions{})
			if err != nil {
				b.Skip(err)
			}
			return j
		}},
		{"unconfined", func(*testing.B) Jail { return Unconfined{} }},
	} {
		b.Run(jc.name, func(b *testing.B) {
			sb, err := New(b.TempDir(), Options{Jail: jc.jail(b)})
			if err != nil {
				b.Fatal(err)
			}
			defer sb.Close()
			b.ReportAllocs()
			for b.Loop() {
				if res, err := sb.Shell(context.Background(), "true", 0); err != nil || res.ExitCode != 0 {
					b.Fatal(res, err)
				}
			}
		})
	}
}
