package main

import (
	"github.com/agentspine/spine/report/textview"
)

// termFailure is g with every item one escaped line (textview.TermFailure).
var termFailure = textview.TermFailure
