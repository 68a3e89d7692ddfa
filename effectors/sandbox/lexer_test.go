package sandbox

import (
	"strings"
	"testing"
)

// describeCommands renders parsed commands as "names|args|redirects" per command, with
// computed words marked by a leading '$' (when the text does not already start with one).
func describeCommands(cmds []simpleCommand) string {
	var parts []string
	for _, sc := range cmds {
		ch := chainOf(sc)
		if ch.skipped {
			parts = append(parts, "(no command)")
			continue
		}
		var names, args, redirs []string
		for _, n := range ch.names {
			names = append(names, n.text)
		}
		for _, a := range ch.args {
			args = append(args, a.text)
		}
		for _, r := range sc.redirects {
			redirs = append(redirs, r.op+r.target.text)
		}
		parts = append(parts, strings.Join(names, "+")+"|"+strings.Join(args, ",")+"|"+strings.Join(redirs, ","))
	}
	return strings.Join(parts, " ; ")
}

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ls -la", "ls|-la|"},
		{"cat a.txt | grep -n 'x y' | wc -l", "cat|a.txt| ; grep|-n,x y| ; wc|-l|"},
		{"make && ./run || echo failed; date", "make|| ; ./run|| ; echo|failed| ; date||"},
		{`echo "a | b" 'c ; d' e\ f`, "echo|a | b,c ; d,e f|"},
		{"sort f > out.txt 2>&1", "sort|f|>out.txt,>&1"},
		{"cmd 2> err.log >> all.log < in.txt", "cmd||>err.log,>>all.log,<in.txt"},
		{"FOO=1 BAR=2 go test ./...", "go|test,./...|"},
		{"sudo -u bob env A=1 nice -n 5 rm -rf x", "sudo+env+nice+rm|-rf,x|"},
		{"timeout 5 xargs -0 rm", "timeout+xargs+rm||"},
		{"echo $(rm -rf y) `id -u`", "rm|-rf,y| ; id|-u| ; echo|$(…),$(…)|"},
		{`echo "today is $(date +%F)"`, "date|+%F| ; echo|today is $(…)|"},
		{"(cd sub && make) & wait", "cd|sub| ; make|| ; wait||"},
		{"if test -f x; then cat x; else touch x; fi", "test|-f,x| ; cat|x| ; touch|x| ; (no command)"},
		{"for f in *.go; do gofmt -l $f; done", "(no command) ; gofmt|-l,$f| ; (no command)"},
		{"cat <<'EOF' > g.txt\nrm -rf /\nEOF\nwc -l g.txt", "cat||<<EOF,>g.txt ; wc|-l,g.txt|"},
		{"cat <<-END\n\trm x\n\tEND\nls", "cat||<<-END ; ls||"},
		{"echo hi # rm -rf /", "echo|hi|"},
		{"echo $((1+2)) ${HOME}/x $?", "echo|$((1+2)),${HOME}/x,$?|"},
		{"$CMD arg", "$CMD|arg|"},
		{"a=1", "(no command)"},
		{"ls \\\n -l", "ls|-l|"},
		{"echo a&>log", "echo|a|&>log"},
		{"grep -r 'a->b' .", "grep|-r,a->b,.|"},
		{"", ""},
	} {
		cmds, err := parseCommand(tc.in)
		if err != nil {
			t.Errorf("parseCommand(%q): %v", tc.in, err)
			continue
		}
		if got := describeCommands(cmds); got != tc.want {
			t.Errorf("parseCommand(%q)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestParseCommandUnterminated(t *testing.T) {
	for _, in := range []string{`echo "abc`, "echo 'abc", "echo $(ls", "echo `ls", "echo ${HOME", "echo $((1+2)"} {
		if _, err := parseCommand(in); err == nil {
			t.Errorf("parseCommand(%q) accepted an unterminated command", in)
		}
	}
}

// FuzzParseCommand checks that the lexer never panics or loops on any input.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"ls -la | wc", "echo \"$(cat <<EOF\nx\nEOF\n)\"", "a 2>&1 >f", "`a $(b \"c\")`", "x='", "((", "))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		cmds, err := parseCommand(in)
		if err != nil {
			return
		}
		for _, sc := range cmds {
			chainOf(sc)
		}
	})
}
