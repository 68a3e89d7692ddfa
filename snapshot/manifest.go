package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// manifestHeader is the first line of every manifest; it changes when a reader of the
// old layout would misread the new one.
const manifestHeader = "spine-snapshot/1"

// Entry types in a manifest.
const (
	TypeFile    = 'f'
	TypeDir     = 'd'
	TypeSymlink = 'l'
)

// Entry is one path of a snapshot. Path is slash-separated and relative to the work
// dir; Hash is the content's SHA-256 in hex (files only); Target is a symlink's target
// (symlinks only), relative and inside the dir.
type Entry struct {
	Type   byte
	Mode   fs.FileMode // permission bits only
	Size   int64
	Hash   string
	Path   string
	Target string
}

// Manifest is a snapshot: its entries in strictly increasing path order.
type Manifest struct {
	Entries []Entry
}

// Files is the number of regular files and Bytes their total size.
func (m *Manifest) Files() (files int, bytes int64) {
	for _, e := range m.Entries {
		if e.Type == TypeFile {
			files++
			bytes += e.Size
		}
	}
	return files, bytes
}

// Encode writes the manifest in its text layout: the header line, then one line per
// entry, "TYPE MODE SIZE HASH PATH [TARGET]", MODE in octal, PATH and TARGET quoted as Go
// strings, "-" for a field the type has none of.
func (m *Manifest) Encode() []byte {
	var b bytes.Buffer
	b.WriteString(manifestHeader + "\n")
	for _, e := range m.Entries {
		b.WriteByte(e.Type)
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(uint64(e.Mode.Perm()), 8))
		b.WriteByte(' ')
		if e.Type == TypeFile {
			b.WriteString(strconv.FormatInt(e.Size, 10))
			b.WriteByte(' ')
			b.WriteString(e.Hash)
		} else {
			b.WriteString("- -")
		}
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.Path))
		if e.Type == TypeSymlink {
			b.WriteByte(' ')
			b.WriteString(strconv.Quote(e.Target))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Root is the manifest's root hash: the SHA-256 of its encoding, in hex.
func (m *Manifest) Root() string { return hashHex(m.Encode()) }

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ParseError is a manifest that is not in the layout Encode writes: the line (1-based)
// and what was expected there.
type ParseError struct {
	Name string
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg) }

// maxManifestLine bounds one manifest line: a path or a target longer than this is not
// something Take writes.
const maxManifestLine = 16 << 10

// ParseManifest reads a manifest written by Encode, checking everything Restore relies
// on: every path clean, relative and inside the dir, strictly increasing (so no
// duplicates, parents before children), every parent a directory entry, every symlink
// target relative and inside the dir, hashes of 64 hex digits. name is used in errors.
func ParseManifest(name string, data []byte) (*Manifest, error) {
	lines := strings.Split(string(data), "\n")
	if len(lines) == 0 || lines[0] != manifestHeader {
		return nil, &ParseError{name, 1, fmt.Sprintf("expected the header %q", manifestHeader)}
	}
	if lines[len(lines)-1] != "" {
		return nil, &ParseError{name, len(lines), "the last line has no newline (the manifest is cut short)"}
	}
	lines = lines[1 : len(lines)-1]
	m := &Manifest{Entries: make([]Entry, 0, len(lines))}
	dirs := map[string]bool{".": true}
	for i, line := range lines {
		n := i + 2
		e, err := parseEntry(line)
		if err != nil {
			return nil, &ParseError{name, n, err.Error()}
		}
		if k := len(m.Entries); k > 0 && m.Entries[k-1].Path >= e.Path {
			return nil, &ParseError{name, n, fmt.Sprintf("path %q does not follow %q (paths must be sorted and unique)", e.Path, m.Entries[k-1].Path)}
		}
		if !dirs[path.Dir(e.Path)] {
			return nil, &ParseError{name, n, fmt.Sprintf("path %q: its parent %q is not a directory entry before it", e.Path, path.Dir(e.Path))}
		}
		if e.Type == TypeDir {
			dirs[e.Path] = true
		}
		m.Entries = append(m.Entries, e)
	}
	return m, nil
}

// parseEntry reads one entry line.
func parseEntry(line string) (Entry, error) {
	if len(line) > maxManifestLine {
		return Entry{}, fmt.Errorf("line of %d bytes, over the limit of %d", len(line), maxManifestLine)
	}
	fields := strings.SplitN(line, " ", 5)
	if len(fields) != 5 {
		return Entry{}, fmt.Errorf("expected TYPE MODE SIZE HASH PATH, got %d fields", len(fields))
	}
	var e Entry
	if len(fields[0]) != 1 || !strings.Contains("fdl", fields[0]) {
		return e, fmt.Errorf("type %q: expected f, d or l", fields[0])
	}
	e.Type = fields[0][0]
	mode, err := strconv.ParseUint(fields[1], 8, 32)
	if err != nil || mode > 0o777 {
		return e, fmt.Errorf("mode %q: expected octal permission bits (at most 777)", fields[1])
	}
	e.Mode = fs.FileMode(mode)
	if e.Type == TypeFile {
		size, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil || size < 0 || fields[2] != strconv.FormatInt(size, 10) {
			return e, fmt.Errorf("size %q: expected a decimal number of bytes", fields[2])
		}
		if !isHash(fields[3]) {
			return e, fmt.Errorf("hash %q: expected 64 lowercase hex digits", fields[3])
		}
		e.Size, e.Hash = size, fields[3]
	} else if fields[2] != "-" || fields[3] != "-" {
		return e, fmt.Errorf("a %c entry has no size or hash: expected \"- -\"", e.Type)
	}
	rest := fields[4]
	p, rest, err := unquotePrefix(rest)
	if err != nil {
		return e, fmt.Errorf("path: %v", err)
	}
	if err := checkPath(p); err != nil {
		return e, fmt.Errorf("path %q: %v", p, err)
	}
	e.Path = p
	if e.Type == TypeSymlink {
		if !strings.HasPrefix(rest, " ") {
			return e, fmt.Errorf("symlink %q: expected its quoted target after the path", p)
		}
		t, after, err := unquotePrefix(rest[1:])
		if err != nil {
			return e, fmt.Errorf("symlink %q target: %v", p, err)
		}
		rest = after
		if err := checkTarget(p, t); err != nil {
			return e, fmt.Errorf("symlink %q: %v", p, err)
		}
		e.Target = t
	}
	if rest != "" {
		return e, fmt.Errorf("unexpected text after the entry: %q", rest)
	}
	return e, nil
}

// unquotePrefix reads the Go-quoted string at the start of s.
func unquotePrefix(s string) (string, string, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil || !strings.HasPrefix(q, `"`) {
		return "", "", fmt.Errorf("expected a double-quoted string")
	}
	v, err := strconv.Unquote(q)
	if err != nil {
		return "", "", fmt.Errorf("expected a double-quoted string: %v", err)
	}
	return v, s[len(q):], nil
}

func isHash(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// checkPath accepts a clean, relative, slash-separated path inside the dir.
func checkPath(p string) error {
	switch {
	case p == "" || p == ".":
		return fmt.Errorf("expected a path below the dir")
	case !fs.ValidPath(p):
		return fmt.Errorf("expected a clean relative path inside the dir")
	case strings.ContainsAny(p, "\x00\\"):
		return fmt.Errorf("expected no NUL or backslash")
	}
	return nil
}

// checkTarget accepts a symlink target that is relative and stays inside the dir: any
// ".." come first and climb no higher than the link's own directory (whose parents are
// real directories, as Take walks no link), and the names after them go down. A ".."
// after a name is refused: the name may itself be a link (to "." say), and the kernel
// would climb from where it points, not from where the text suggests.
func checkTarget(link, target string) error {
	if target == "" || strings.ContainsRune(target, 0) {
		return fmt.Errorf("empty target or a NUL in it")
	}
	if path.IsAbs(target) {
		return fmt.Errorf("target %q is absolute: it points outside the dir", target)
	}
	depth := 0
	if d := path.Dir(link); d != "." {
		depth = strings.Count(d, "/") + 1
	}
	ups, named := 0, false
	for _, c := range strings.Split(target, "/") {
		switch c {
		case "", ".":
		case "..":
			if named {
				return fmt.Errorf("target %q has \"..\" after a name: a snapshot holds targets that climb first, then descend", target)
			}
			ups++
		default:
			named = true
		}
	}
	if ups > depth {
		return fmt.Errorf("target %q points outside the dir", target)
	}
	return nil
}
