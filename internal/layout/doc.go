// Package layout holds no code. Its tests keep the project's map true: the layout table
// of README.md names every package of the module and only packages, every package has a
// doc comment, and the packages at the bottom of the import graph (clock,
// internal/strictjson) import nothing of the project.
//
// It owns those checks only. It must not be imported: the tests read the module's
// directories and README.md from the source tree, as go test runs them.
package layout
