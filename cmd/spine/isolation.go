package main

import "github.com/agentspine/spine/internal/termui"

// warn prints a warning on stderr, in red on a terminal (termui.Warn).
func warn(io stdio, msg string) { termui.Warn(io.rawErr, io.err, msg) }
