package reports

import (
	"fmt"
	"strings"
)

// Status is where a stored report stands in moderation.
type Status uint8

// Statuses. A report is open until a moderator resolves it; the resolution's
// action decides which closed status it gets.
const (
	StatusOpen      Status = 1 // waiting for a moderator
	StatusDismissed Status = 2 // resolved: no action
	StatusWarned    Status = 3 // resolved: the reportee was warned
	StatusSuspended Status = 4 // resolved: the reportee was suspended
)

// Action is what a moderator's resolution does to the reportee.
type Action uint8

// Actions of a resolution.
const (
	ActionDismiss Action = 1
	ActionWarn    Action = 2
	ActionSuspend Action = 3
)

// statusTable is the one table of report statuses: name, and the action
// that closes a report with it (0 for open).
var statusTable = []struct {
	status Status
	name   string
	action Action
}{
	{StatusOpen, "open", 0},
	{StatusDismissed, "dismissed", ActionDismiss},
	{StatusWarned, "warned", ActionWarn},
	{StatusSuspended, "suspended", ActionSuspend},
}

// actionNames are the actions as the resolve command takes them.
var actionNames = []struct {
	action Action
	name   string
}{
	{ActionDismiss, "dismiss"},
	{ActionWarn, "warn"},
	{ActionSuspend, "suspend"},
}

// Valid reports whether s is in the table.
func (s Status) Valid() bool {
	for _, row := range statusTable {
		if row.status == s {
			return true
		}
	}
	return false
}

// String is the status's name ("open"), or "status(N)".
func (s Status) String() string {
	for _, row := range statusTable {
		if row.status == s {
			return row.name
		}
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// ParseStatus reads a status name, case-insensitively.
func ParseStatus(name string) (Status, bool) {
	for _, row := range statusTable {
		if strings.EqualFold(row.name, name) {
			return row.status, true
		}
	}
	return 0, false
}

// Statuses returns every status in table order.
func Statuses() []Status {
	out := make([]Status, len(statusTable))
	for i, row := range statusTable {
		out[i] = row.status
	}
	return out
}

// StatusOf is the status a report takes when resolved with a; ok is false
// for an unknown action.
func StatusOf(a Action) (s Status, ok bool) {
	for _, row := range statusTable {
		if row.action == a && a != 0 {
			return row.status, true
		}
	}
	return 0, false
}

// Valid reports whether a is a known action.
func (a Action) Valid() bool {
	_, ok := StatusOf(a)
	return ok
}

// String is the action's name ("warn"), or "action(N)".
func (a Action) String() string {
	for _, row := range actionNames {
		if row.action == a {
			return row.name
		}
	}
	return fmt.Sprintf("action(%d)", uint8(a))
}

// ParseAction reads an action name, case-insensitively.
func ParseAction(name string) (Action, bool) {
	for _, row := range actionNames {
		if strings.EqualFold(row.name, name) {
			return row.action, true
		}
	}
	return 0, false
}

// Standing is an account's moderation status as reportinforequest carries
// it (protocol-notes §6).
type Standing uint8

// Standings, with the client's numbers.
const (
	StandingNormal          Standing = 0
	StandingWarning         Standing = 1
	StandingSuspended       Standing = 2
	StandingObserved        Standing = 3
	StandingObservedWarning Standing = 4
)

var standingNames = []string{"normal", "warning", "suspended", "observed", "observed_warning"}

// Valid reports whether s is one of the client's five values.
func (s Standing) Valid() bool { return int(s) < len(standingNames) }

// String is the standing's name ("suspended"), or "standing(N)".
func (s Standing) String() string {
	if s.Valid() {
		return standingNames[s]
	}
	return fmt.Sprintf("standing(%d)", uint8(s))
}
