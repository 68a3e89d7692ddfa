// Package layout holds no code. Its tests keep the project's map true: the layout table
// of README.md names every package of the module and only packages, and every package
// has a doc comment.
//
// It owns those checks only. It must not be imported: the tests read the module's
// directories and README.md from the source tree, as go test runs them.
package layout
