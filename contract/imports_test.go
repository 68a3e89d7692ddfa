package contract

import (
	"go/build"
	"strings"
	"testing"
)

// TestImportsNothingOfTheProject keeps contract at the bottom of the import graph: every
// role, the engine and the memory import it, so it may import nothing of theirs.
func TestImportsNothingOfTheProject(t *testing.T) {
	const module = "github.com/agentspine/spine"
	for _, goos := range []string{"linux", "darwin", "windows"} {
		ctx := build.Default
		ctx.GOOS = goos
		pkg, err := ctx.ImportDir(".", 0)
		if err != nil {
			t.Fatalf("GOOS=%s: %v", goos, err)
		}
		for _, imp := range pkg.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				t.Errorf("GOOS=%s: contract imports %s; it must import no package of the project", goos, imp)
			}
		}
	}
}
