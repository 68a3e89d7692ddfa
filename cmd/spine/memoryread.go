package main

import "github.com/agentspine/spine/report/textview"

// R2's read of memory and memory's answer, in the words of the timeline.
var (
	memoryQueryLine  = textview.MemoryQueryLine
	memoryAnswerLine = textview.MemoryAnswerLine
)
