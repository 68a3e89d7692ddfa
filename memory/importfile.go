package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/internal/strictjson"
	"github.com/agentspine/spine/spine/trace"
)

// ImportFile is a JSONL file of either kind an import takes: Megrams, one per line (a
// Megram object or a {"type":"Megram",...} envelope), appended as operator imports; or
// the lines of Export, restored under their own IDs. A file holds one kind.
type ImportFile struct {
	Megrams  []contract.Megram
	Exported []ExportedRecord
	Lines    []int // the file's line of each entry, in order
}

// OpenImportFile reads the import file at path (ReadImportFile), or stdin when path is
// "-". A named file must be a regular one: a FIFO would hang, /dev/zero never end
// (trace.OpenRegular).
func OpenImportFile(path string, stdin io.Reader) (*ImportFile, error) {
	if path == "-" {
		return ReadImportFile(path, stdin)
	}
	f, err := trace.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadImportFile(path, f)
}

// ReadImportFile reads and checks every line of an import file before anything is
// written; an error names the line (from 1) and what is wrong, quoting the line's own
// values as excerpts (a line may be megabytes).
func ReadImportFile(name string, r io.Reader) (*ImportFile, error) {
	f := &ImportFile{}
	lr := linecap.New(name, r)
	for n := 1; ; n++ {
		line, _, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return f, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		exported := isExportLine(line)
		if len(f.Lines) > 0 && exported != (f.Exported != nil) {
			kind := map[bool]string{true: "an exported record", false: "a Megram"}
			kinds := map[bool]string{true: "exported records", false: "Megrams"}
			return nil, fmt.Errorf("line %d: %s among %s; a file holds one kind", n, kind[exported], kinds[!exported])
		}
		if exported {
			rec, err := ParseExportLine(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %s", n, linecap.BoundQuotes(err.Error()))
			}
			f.Exported = append(f.Exported, rec)
		} else {
			mg, err := ParseMegramLine(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %s", n, linecap.BoundQuotes(err.Error()))
			}
			f.Megrams = append(f.Megrams, mg)
		}
		f.Lines = append(f.Lines, n)
	}
}

// ImportFile writes what f holds: Restore for exported records, else ImportWith. A
// refused entry's error names its line in the file.
func (s *Service) ImportFile(ctx context.Context, f *ImportFile, o ImportOptions) (ImportReport, error) {
	var rep ImportReport
	var err error
	if f.Exported != nil {
		rep, err = s.Restore(ctx, f.Exported, o)
	} else {
		rep, err = s.ImportWith(ctx, f.Megrams, o)
	}
	var ie *ImportError
	if errors.As(err, &ie) {
		return rep, &ImportLineError{Line: f.Lines[ie.Index], Err: ie}
	}
	return rep, err
}

// ImportLineError is an ImportError that names the entry's line in its file.
type ImportLineError struct {
	Line int
	Err  *ImportError
}

// Error quotes the record's own values (its id) as excerpts: a line may be megabytes.
func (e *ImportLineError) Error() string {
	return fmt.Sprintf("line %d: %s", e.Line, linecap.BoundQuotes(e.Err.Err.Error()))
}

func (e *ImportLineError) Unwrap() error { return e.Err }

// isExportLine tells a line of Export by its type; anything else is read as a Megram,
// whose parser names what is wrong with it.
func isExportLine(line []byte) bool {
	var probe struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(line, &probe) == nil && probe.Type == ExportType
}

// ParseMegramLine reads one Megram of an import file: a Megram object or a Megram
// envelope, with no unknown field.
func ParseMegramLine(line []byte) (contract.Megram, error) {
	var probe struct {
		Type    *string         `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return contract.Megram{}, fmt.Errorf("not a JSON object: %v", err)
	}
	body := line
	if probe.Type != nil {
		if *probe.Type != contract.TypeMegram {
			return contract.Megram{}, fmt.Errorf("envelope of type %s, want %q", linecap.ExcerptString(*probe.Type), contract.TypeMegram)
		}
		body = probe.Payload
	}
	var mg contract.Megram
	if err := strictjson.Decode(body, &mg); err != nil {
		for _, f := range []string{"origin", "supersedes", "attention", "decision", "superseded_by"} {
			if err.Error() == `json: unknown field "`+f+`"` {
				// A line of memory ls --json, which shows records and live potentials.
				return contract.Megram{}, fmt.Errorf("megram: %v (memory ls --json lists a store; memory export writes what import restores)", err)
			}
		}
		return contract.Megram{}, fmt.Errorf("megram: %v", err)
	}
	return mg, nil
}
