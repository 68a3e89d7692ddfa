//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// probeScript is the self-check NewBubblewrap runs inside the sandbox, after the launcher
// has printed its Landlock line: the process's credentials and filters as the kernel
// reports them, whether a kernel setting can be
// opened for writing, and the work dir's mount options; and it creates a file whose owner
// the spine then reads on the host.
const probeScript = `cat /proc/self/status
: > ` + probeOwnerFile + `
if (: >> /proc/sys/kernel/core_pattern) 2>/dev/null; then echo "sysctl: writable"; fi
while read -r _ _ _ _ mnt opts _; do [ "$mnt" = "$PWD" ] && echo "workmount: $opts"; done < /proc/self/mountinfo
exit 0`

// probeOwnerFile is the file the probe creates in its work dir; its owner on the host is
// the host uid commands run as.
const probeOwnerFile = ".spine-probe-owner"

// walls is what the self-check found.
type walls struct {
	outsideUID     int // -1: not read
	noNewPrivs     bool
	caps           map[string]string // CapInh, CapPrm, CapEff, CapBnd, CapAmb
	seccomp        string            // the Seccomp: field; "2" is a filter
	sysctlWritable bool
	workMount      string // the work dir's mount options
	landlockABI    int    // 0: not enforced
	landlock       string // the launcher's words
}

// readWalls parses the self-check's output.
func readWalls(out, dir string) walls {
	w := walls{outsideUID: -1, caps: map[string]string{}, landlock: "the launcher did not report"}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch key {
		case "NoNewPrivs":
			w.noNewPrivs = value == "1"
		case "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb":
			w.caps[key] = value
		case "Seccomp":
			w.seccomp = value
		case "sysctl":
			w.sysctlWritable = value == "writable"
		case "workmount":
			w.workMount = value
		case "landlock":
			w.landlock = value
			if v, ok := strings.CutPrefix(value, "enforced, ABI "); ok {
				w.landlockABI, _ = strconv.Atoi(v)
			}
		}
	}
	return w
}

// missingRequired names the walls the sandbox must have and the self-check did not find.
func (w walls) missingRequired(host hostIdentity, seccomp bool) []string {
	var missing []string
	switch {
	case w.outsideUID < 0:
		missing = append(missing, "an unprivileged host uid: the self-check could not create a file in its work dir")
	case w.outsideUID == 0:
		missing = append(missing, "an unprivileged host uid: commands would be root outside the sandbox")
	case w.outsideUID != host.uid:
		missing = append(missing, fmt.Sprintf("the expected host uid: %d, not %d", w.outsideUID, host.uid))
	}
	if !w.noNewPrivs {
		missing = append(missing, "no_new_privs")
	}
	for _, c := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if v, ok := w.caps[c]; !ok || strings.Trim(v, "0") != "" {
			missing = append(missing, fmt.Sprintf("every capability dropped: %s is %q", c, v))
		}
	}
	if seccomp && w.seccomp != "2" {
		missing = append(missing, fmt.Sprintf("the seccomp filter: Seccomp is %q, not 2", w.seccomp))
	}
	if w.sysctlWritable {
		missing = append(missing, "read-only kernel settings: /proc/sys/kernel/core_pattern opens for writing")
	}
	opts := strings.Split(w.workMount, ",")
	if !contains(opts, "nosuid") || !contains(opts, "nodev") {
		missing = append(missing, fmt.Sprintf("a nosuid,nodev work dir: its mount options are %q", w.workMount))
	}
	return missing
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
