package vault

import (
	"strconv"
	"strings"
	"time"
)

// dateLayouts are the ways vaults write a day, tried in order after ISO
// (YAML already turns an unquoted 2026-03-10 into a date). Numeric
// day-and-month forms are read by recordDay, which refuses the ambiguous.
var (
	dayLayouts = []string{
		time.RFC3339, "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02 15:04:05",
		"2006/01/02", "2006.01.02",
		"January 2, 2006", "Jan 2, 2006", "January 2 2006", "Jan 2 2006",
		"2 January 2006", "2 Jan 2006", "Monday, January 2, 2006", "Mon, Jan 2, 2006",
	}
	monthLayouts = []string{"January 2006", "Jan 2006", "2006/01"}
)

// recordDay reads a record's date as YYYY-MM-DD (or YYYY-MM for a month),
// so records sort and filter by date whatever way the note wrote it. ok is
// false when the text is no date Jarvis can place: then it is kept as
// written, and ambiguous says a numeric day and month could be either way
// round (03/04/2026).
func recordDay(s string) (day string, ok, ambiguous bool) {
	s = strings.TrimSpace(s)
	if len(s) >= 10 && s[4] == '-' && s[7] == '-' {
		if _, err := time.Parse("2006-01-02", s[:10]); err == nil {
			return s[:10], true, false
		}
	}
	if len(s) == 7 && s[4] == '-' {
		if _, err := time.Parse("2006-01", s); err == nil {
			return s, true, false
		}
	}
	for _, layout := range dayLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format("2006-01-02"), true, false
		}
	}
	for _, layout := range monthLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format("2006-01"), true, false
		}
	}
	// d/m/y or m/d/y with slashes, dots or dashes.
	for _, sep := range []string{"/", ".", "-"} {
		parts := strings.Split(s, sep)
		if len(parts) != 3 || len(parts[2]) != 4 {
			continue
		}
		a, errA := strconv.Atoi(parts[0])
		b, errB := strconv.Atoi(parts[1])
		y, errY := strconv.Atoi(parts[2])
		if errA != nil || errB != nil || errY != nil {
			return "", false, false
		}
		var month, dayN int
		switch {
		case a > 12 && b <= 12:
			dayN, month = a, b
		case b > 12 && a <= 12:
			month, dayN = a, b
		case a == b:
			month, dayN = a, b
		case a >= 1 && a <= 12 && b >= 1 && b <= 12:
			return "", false, true
		default: // 555-123-4567: no day and month at all
			return "", false, false
		}
		t := time.Date(y, time.Month(month), dayN, 0, 0, 0, 0, time.UTC)
		if t.Day() != dayN || int(t.Month()) != month {
			return "", false, false
		}
		return t.Format("2006-01-02"), true, false
	}
	return "", false, false
}
