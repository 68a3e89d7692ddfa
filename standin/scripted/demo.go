package scripted

import (
	"encoding/json"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
)

// PipelineDemo is the task `spine demo --pipeline` runs through the whole pipeline: a
// tiny project to copy into a fresh work dir, the user's words, and the script of every
// role's replies (a Chat plays it; no model is called).
//
// The story, two rounds: R2's first plan guesses that the TODOs are kept in a list file,
// src/TODO.md. The file tool finds no such file; R4a sends R3 back twice (the second
// guess, src/TODO, is not there either) and the subtask fails, environmentally. GGS sees
// the loss stuck with environmental failures and directs change_path, blocking both
// guesses. R2's second plan lists src/, counts with grep in the sandbox and writes the
// total to report.txt; R4a and R4b pass it on the evidence, and GGS accepts. Every tool
// output is the real one; each scripted turn that follows a tool call checks it (Expect).
type PipelineDemo struct {
	Task   string
	Files  []File
	Script Script
	// Report is the file the task asks for and Want what it must hold at the end: the
	// count the real grep finds in Files.
	Report, Want string
}

// File is one file of the demo's project, relative to the work dir.
type File struct {
	Path, Content string
}

// The criteria as R2 writes them; R4a and R4b copy them exactly into their verdicts.
const (
	demoTaskCriterion = "report.txt holds the number of lines in the files under src/ that contain TODO"
	demoGuessRead     = "the TODO lines are counted from the project's TODO list"
	demoGuessWrite    = "report.txt holds the count"
	demoEveryFile     = "every file under src/ is counted"
	demoTotal         = "report.txt holds the total number of lines in the files under src/ that contain TODO"
)

// NewPipelineDemo returns the demo's task, project and script.
func NewPipelineDemo() PipelineDemo {
	return PipelineDemo{
		Task: "Count the lines that contain TODO in the files under src/ and write the count to report.txt",
		Files: []File{
			{"README.md", "# hello\n\nA tiny project for the spine demo. TODO: a real README (not under src/, so not counted).\n"},
			{"src/main.go", "package main\n\nimport \"fmt\"\n\n// TODO: read the greeting from a flag\nfunc main() {\n\tfmt.Println(greeting())\n\t// TODO: exit non-zero when the greeting is empty\n}\n"},
			{"src/util.go", "package main\n\n// greeting is what main prints.\n// TODO: translate it\nfunc greeting() string { return \"hello\" }\n"},
		},
		Report: "report.txt",
		Want:   "3\n",
		Script: demoScript(),
	}
}

func demoScript() Script {
	return Script{
		llm.R1: {
			{Expect: []string{"report.txt"}, Content: js(map[string]any{
				"intent":      "Count the lines that contain TODO in the files under src/ and write the count to report.txt",
				"constraints": map[string]any{"scope": "src/", "deadline": nil}, "questions": []string{}})},
		},
		llm.R2: {
			{Expect: []string{`"round":1`}, Content: js(map[string]any{
				"task_criteria": []string{demoTaskCriterion},
				"subtasks": []map[string]any{{
					"intent":           "Read the TODO list src/TODO.md, count its lines that contain TODO, and write the count to report.txt",
					"success_criteria": []string{demoGuessRead, demoGuessWrite},
					"context":          "Projects like this one usually keep their TODO list in src/TODO.md.",
					"sequence":         1, "tools": []string{"read_file", "write_file"},
					"targets": []string{"src/TODO.md", "report.txt"}}}})},
			{Expect: []string{`"directive":"change_path"`, "read_file:src/TODO.md"}, Content: js(map[string]any{
				"task_criteria": []string{demoTaskCriterion},
				"subtasks": []map[string]any{{
					"intent":           "List the files under src/, count the lines that contain TODO in each with grep, and write the total to report.txt",
					"success_criteria": []string{demoEveryFile, demoTotal},
					"context":          "There is no TODO list file: src/TODO.md and src/TODO do not exist. The TODOs are comments in the source files.",
					"sequence":         1, "tools": []string{"list_files", "shell", "write_file"},
					"targets": []string{"src", "grep -c TODO", "report.txt"}}}})},
		},
		llm.R3: {
			// Round 1, attempt 1: the planned file is not there.
			{Expect: []string{`"attempt":1`, "src/TODO.md"}, ToolCalls: []contract.ModelToolCall{call("call-1", "read_file", map[string]any{"path": "src/TODO.md"})}},
			{Expect: []string{"no such file"}, Content: js(map[string]any{"status": "failed", "output": "src/TODO.md does not exist; there is no list to count"})},
			// Attempt 2, after R4a's correction: the other spelling.
			{Expect: []string{`"attempt":2`, "src/TODO"}, ToolCalls: []contract.ModelToolCall{call("call-2", "read_file", map[string]any{"path": "src/TODO"})}},
			{Expect: []string{"no such file"}, Content: js(map[string]any{"status": "failed", "output": "src/TODO does not exist either"})},
			// Attempt 3: read_file cannot search, and the plan names no other file.
			{Expect: []string{`"attempt":3`}, Content: js(map[string]any{"status": "failed",
				"output": "the subtask's TODO list is neither src/TODO.md nor src/TODO, and read_file cannot search for it; the plan must point elsewhere"})},
			// Round 2: list, count in the sandbox, write.
			{Expect: []string{`"attempt":1`, "List the files under src/"}, ToolCalls: []contract.ModelToolCall{call("call-3", "list_files", map[string]any{"path": "src"})}},
			{Expect: []string{"main.go", "util.go"}, ToolCalls: []contract.ModelToolCall{call("call-4", "shell", map[string]any{"command": "grep -c TODO src/main.go src/util.go"})}},
			{Expect: []string{"src/main.go:2", "src/util.go:1"}, ToolCalls: []contract.ModelToolCall{call("call-5", "write_file", map[string]any{"path": "report.txt", "content": "3\n"})}},
			{Expect: []string{"report.txt"}, Content: js(map[string]any{"status": "completed",
				"output": "3 lines under src/ contain TODO (src/main.go: 2, src/util.go: 1); report.txt holds 3"})},
		},
		llm.R4a: {
			{Expect: []string{"read_file:src/TODO.md"}, Content: judged("src/TODO.md is not there; try the list's other usual name, src/TODO",
				verdict(demoGuessRead, "fail", "environmental", "read_file:src/TODO.md → no such file"),
				verdict(demoGuessWrite, "fail", "environmental", "report.txt was not written"))},
			{Expect: []string{"read_file:src/TODO"}, Content: judged("neither name exists; report that the list cannot be found with read_file",
				verdict(demoGuessRead, "fail", "environmental", "read_file:src/TODO → no such file"),
				verdict(demoGuessWrite, "fail", "environmental", "report.txt was not written"))},
			{Expect: []string{`"status":"failed"`}, Content: judged("the plan must count elsewhere than a TODO list file",
				verdict(demoGuessRead, "fail", "environmental", "no TODO list file under src/"),
				verdict(demoGuessWrite, "fail", "environmental", "report.txt was not written"))},
			{Expect: []string{"src/main.go:2", "write_file:report.txt"}, Content: judged("",
				verdict(demoEveryFile, "pass", "", "list_files:src → main.go, util.go; grep counted both"),
				verdict(demoTotal, "pass", "", "grep -c: src/main.go:2, src/util.go:1; write_file:report.txt wrote 3"))},
		},
		llm.R4b: {
			{Expect: []string{"report.txt", "src/main.go:2"}, Content: js(map[string]any{
				"summary": "3 lines in the files under src/ contain TODO (2 in main.go, 1 in util.go); report.txt holds 3.",
				"merged":  map[string]any{"count": 3, "report": "report.txt"},
				"verdicts": []map[string]any{verdict(demoTaskCriterion, "pass", "",
					"grep -c TODO src/main.go src/util.go → 2 and 1; write_file:report.txt wrote 3")}})},
		},
	}
}

// js encodes a reply the way a model writes one: a JSON object as text.
func js(v any) string {
	b, _ := json.Marshal(v) // maps of strings, numbers, nils and slices always encode
	return string(b)
}

func call(id, name string, args map[string]any) contract.ModelToolCall {
	return contract.ModelToolCall{ID: id, Name: name, Arguments: js(args)}
}

func verdict(criterion, v, class, evidence string) map[string]any {
	m := map[string]any{"criterion": criterion, "verdict": v, "failure_class": nil, "evidence": evidence}
	if class != "" {
		m["failure_class"] = class
	}
	return m
}

func judged(whatToDo string, verdicts ...map[string]any) string {
	return js(map[string]any{"verdicts": verdicts, "what_to_do": whatToDo})
}
