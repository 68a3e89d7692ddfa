package sandbox

import (
	"errors"
	"strings"
)

// The lexer reads a shell command the way sh would split it into simple commands, well
// enough to find each command's name, arguments and redirections. It handles quotes,
// backslashes, comments, the control operators, redirections (with fd prefixes),
// here-documents (their bodies are skipped), subshells, and $( … ) / `…` command
// substitutions (their commands are checked as commands of their own). It does not
// expand anything: a word holding $VAR or $( … ) is marked computed.

// word is one shell word after quote removal.
type word struct {
	text     string
	computed bool // contains an expansion or substitution
	quoted   bool // some part was quoted
}

// redirect is one redirection: its operator (fd prefix dropped) and target word.
type redirect struct {
	op     string
	target word
}

// simpleCommand is one command of a pipeline or list.
type simpleCommand struct {
	words     []word // assignments and command words, in order
	redirects []redirect
}

type lexer struct {
	src      string
	i        int
	out      []simpleCommand
	heredocs []heredoc
}

type heredoc struct {
	delim     string
	stripTabs bool
}

var errUnterminated = errors.New("unterminated quote or substitution")

// parseCommand splits src into simple commands.
func parseCommand(src string) ([]simpleCommand, error) {
	l := &lexer{src: src}
	if err := l.list(0); err != nil {
		return nil, err
	}
	return l.out, nil
}

// list reads commands until the closing byte stop (')' or '`'; 0 for end of input).
func (l *lexer) list(stop byte) error {
	var cur simpleCommand
	var w strings.Builder
	var wd word
	inWord := false
	pendingRedir := "" // operator waiting for its target word
	depth := 0         // nested ( … ) subshells inside a $( … )

	flushWord := func() {
		if !inWord {
			return
		}
		wd.text = w.String()
		if pendingRedir != "" {
			cur.redirects = append(cur.redirects, redirect{op: pendingRedir, target: wd})
			if strings.HasPrefix(pendingRedir, "<<") && pendingRedir != "<<<" {
				l.heredocs = append(l.heredocs, heredoc{delim: wd.text, stripTabs: pendingRedir == "<<-"})
			}
			pendingRedir = ""
		} else {
			cur.words = append(cur.words, wd)
		}
		w.Reset()
		wd = word{}
		inWord = false
	}
	endCommand := func() {
		flushWord()
		if len(cur.words) > 0 || len(cur.redirects) > 0 {
			l.out = append(l.out, cur)
		}
		cur = simpleCommand{}
		pendingRedir = ""
	}

	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case stop != 0 && c == stop && !(stop == ')' && depth > 0):
			l.i++
			endCommand()
			return nil
		case c == '\\':
			if l.i+1 < len(l.src) {
				if l.src[l.i+1] != '\n' { // backslash-newline is a line continuation
					w.WriteByte(l.src[l.i+1])
					inWord = true
				}
				l.i += 2
			} else {
				l.i++
			}
		case c == '\'':
			end := strings.IndexByte(l.src[l.i+1:], '\'')
			if end < 0 {
				return errUnterminated
			}
			w.WriteString(l.src[l.i+1 : l.i+1+end])
			inWord, wd.quoted = true, true
			l.i += end + 2
		case c == '"':
			inWord, wd.quoted = true, true
			if err := l.doubleQuoted(&w, &wd); err != nil {
				return err
			}
		case c == '$' || c == '`':
			inWord = true
			if err := l.expansion(&w, &wd); err != nil {
				return err
			}
		case c == '#' && !inWord:
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
		case c == ' ' || c == '\t':
			flushWord()
			l.i++
		case c == '\n':
			endCommand()
			l.i++
			l.skipHeredocBodies()
		case c == '(' || c == ')':
			if c == '(' {
				depth++
			} else if depth > 0 {
				depth--
			}
			endCommand()
			l.i++
		case c == '|' || c == ';' || (c == '&' && !strings.HasPrefix(l.src[l.i:], "&>")):
			endCommand()
			l.i++
			if l.i < len(l.src) && (l.src[l.i] == c || (c == '|' && l.src[l.i] == '&')) {
				l.i++ // ||, ;;, &&, |&
			}
		case c == '<' || c == '>' || c == '&':
			if inWord && !wd.quoted && !wd.computed && isDigits(w.String()) {
				w.Reset() // "2>": the digits name a file descriptor
				inWord = false
			}
			flushWord()
			pendingRedir = l.redirOperator()
		default:
			w.WriteByte(c)
			inWord = true
			if c == '*' || c == '?' || c == '[' {
				wd.computed = true // a glob
			}
			l.i++
		}
	}
	if stop != 0 {
		return errUnterminated
	}
	endCommand()
	return nil
}

// redirOperator consumes a redirection operator at l.i and returns it.
func (l *lexer) redirOperator() string {
	for _, op := range []string{"&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<<", "<&", "<>", ">", "<"} {
		if strings.HasPrefix(l.src[l.i:], op) {
			l.i += len(op)
			return op
		}
	}
	l.i++
	return l.src[l.i-1 : l.i]
}

// doubleQuoted reads a "…" string starting at l.i, substitutions included.
func (l *lexer) doubleQuoted(w *strings.Builder, wd *word) error {
	l.i++ // opening quote
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '"':
			l.i++
			return nil
		case c == '\\' && l.i+1 < len(l.src) && strings.IndexByte("$`\"\\\n", l.src[l.i+1]) >= 0:
			if l.src[l.i+1] != '\n' {
				w.WriteByte(l.src[l.i+1])
			}
			l.i += 2
		case c == '$' || c == '`':
			if err := l.expansion(w, wd); err != nil {
				return err
			}
		default:
			w.WriteByte(c)
			l.i++
		}
	}
	return errUnterminated
}

// expansion reads $name, ${…}, $((…)), $(…) or `…` at l.i. Command substitutions are
// lexed as command lists of their own; the word only records that it is computed.
func (l *lexer) expansion(w *strings.Builder, wd *word) error {
	rest := l.src[l.i:]
	switch {
	case strings.HasPrefix(rest, "$(("):
		end := strings.Index(rest, "))")
		if end < 0 {
			return errUnterminated
		}
		w.WriteString(rest[:end+2])
		l.i += end + 2
	case strings.HasPrefix(rest, "$("):
		l.i += 2
		if err := l.list(')'); err != nil {
			return err
		}
		w.WriteString("$(…)")
	case rest[0] == '`':
		l.i++
		if err := l.list('`'); err != nil {
			return err
		}
		w.WriteString("$(…)")
	case strings.HasPrefix(rest, "${"):
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return errUnterminated
		}
		w.WriteString(rest[:end+1])
		l.i += end + 1
	case len(rest) > 1 && isNameByte(rest[1]) && !isDigits(rest[1:2]):
		n := 2
		for n < len(rest) && isNameByte(rest[n]) {
			n++
		}
		w.WriteString(rest[:n])
		l.i += n
	case len(rest) > 1 && strings.IndexByte("?$!#@*-0123456789", rest[1]) >= 0:
		w.WriteString(rest[:2])
		l.i += 2
	default: // a lone '$' is literal
		w.WriteByte('$')
		l.i++
		return nil
	}
	wd.computed = true
	return nil
}

// skipHeredocBodies skips the bodies of here-documents opened on the line just ended.
func (l *lexer) skipHeredocBodies() {
	for _, h := range l.heredocs {
		for l.i < len(l.src) {
			end := strings.IndexByte(l.src[l.i:], '\n')
			line := l.src[l.i:]
			if end >= 0 {
				line = line[:end]
				l.i += end + 1
			} else {
				l.i = len(l.src)
			}
			if h.stripTabs {
				line = strings.TrimLeft(line, "\t")
			}
			if line == h.delim {
				break
			}
		}
	}
	l.heredocs = nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isNameByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
