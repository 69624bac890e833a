package askcmd

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// reviewOnTerminal shows the passages a cloud model would be sent and
// reads the person's decision: Enter or "s" sends them, "w 2 3" withholds
// passages 2 and 3, "c" (or end of input) cancels. A line it cannot read
// is asked again, never taken as a yes.
func reviewOnTerminal(io *iostreams.IO, in *bufio.Reader, question string, passages []chat.Passage) chat.Decision {
	fmt.Fprintf(io.Err, "? %s\n", question)
	for i, p := range passages {
		where := p.Title
		if p.Source != "" && p.Source != p.Title {
			where += " [" + p.Source + "]"
		}
		fmt.Fprintf(io.Err, "  %d. %s (%d bytes)\n", i+1, where, p.Bytes)
		for _, line := range strings.Split(strings.TrimRight(p.Text, "\n"), "\n") {
			fmt.Fprintf(io.Err, "     │ %s\n", line)
		}
	}
	for {
		fmt.Fprint(io.Err, "? send all [s, Enter], withhold some (w 1 3), cancel [c]: ")
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(io.Err)
			return chat.Decision{} // no answer is no go-ahead
		}
		if d, ok := parseDecision(line, len(passages)); ok {
			return d
		}
		fmt.Fprintf(io.Err, "· answer s, c, or w with passage numbers from 1 to %d\n", len(passages))
	}
}

// parseDecision reads one answer to a review of n passages.
func parseDecision(line string, n int) (chat.Decision, bool) {
	f := strings.Fields(strings.ToLower(line))
	if len(f) == 0 || (len(f) == 1 && (f[0] == "s" || f[0] == "send")) {
		return chat.Decision{Send: true}, true
	}
	switch f[0] {
	case "c", "cancel":
		return chat.Decision{}, len(f) == 1
	case "w", "withhold":
		d := chat.Decision{Send: true}
		for _, x := range strings.FieldsFunc(strings.Join(f[1:], " "), func(r rune) bool { return r == ' ' || r == ',' }) {
			i, err := strconv.Atoi(x)
			if err != nil || i < 1 || i > n {
				return chat.Decision{}, false
			}
			d.Withhold = append(d.Withhold, i-1)
		}
		return d, len(d.Withhold) > 0
	}
	return chat.Decision{}, false
}
