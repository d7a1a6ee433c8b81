package reports

import (
	"fmt"
	"strings"
)

// Reason is why a player was reported, stored as its meaning, never as the
// raw code of the path it came by. Its numeric value is the specification's
// code (the /rap/report2.php code), which is also what a stored record and
// a plugin see.
type Reason uint8

// Reasons, in the specification's order.
const (
	ReasonChatAbuse     Reason = 1 // Chat Abuse
	ReasonFeeding       Reason = 2 // Feeding / Stat Manipulation
	ReasonImpersonation Reason = 3 // Impersonating Staff
	ReasonAbilityAbuse  Reason = 4 // Ability / Item Abuse
	ReasonBadNickname   Reason = 5 // Bad Nickname / Clan Name
	ReasonAFK           Reason = 6 // Refusal to Participate / Avoiding AFK
)

// CodeSet names a way of numbering reasons on the wire.
type CodeSet uint8

// The two numberings of the stock client (protocol-notes §6): the client's
// own codes have 5 = AFK and 6 = Bad Nickname; it sends them unchanged to
// /master/report/report and swaps 5 and 6 for /rap/report2.php, so the
// specification's table holds for report2.php only.
const (
	CodesReport2 CodeSet = iota // /rap/report2.php: the specification's table
	CodesMaster                 // /master/report/report: 5 and 6 swapped
)

// reasonTable is the one table of reasons: name (CLI, logs), title (what a
// player or moderator reads) and the wire code per CodeSet.
var reasonTable = []struct {
	reason  Reason
	name    string
	title   string
	report2 int
	master  int
}{
	{ReasonChatAbuse, "chat_abuse", "Chat Abuse", 1, 1},
	{ReasonFeeding, "feeding", "Feeding / Stat Manipulation", 2, 2},
	{ReasonImpersonation, "impersonating_staff", "Impersonating Staff", 3, 3},
	{ReasonAbilityAbuse, "ability_abuse", "Ability / Item Abuse", 4, 4},
	{ReasonBadNickname, "bad_nickname", "Bad Nickname / Clan Name", 5, 6},
	{ReasonAFK, "afk", "Refusal to Participate / Avoiding AFK", 6, 5},
}

// Reasons returns every known reason in table order.
func Reasons() []Reason {
	out := make([]Reason, len(reasonTable))
	for i, row := range reasonTable {
		out[i] = row.reason
	}
	return out
}

// Valid reports whether r is in the table.
func (r Reason) Valid() bool {
	for _, row := range reasonTable {
		if row.reason == r {
			return true
		}
	}
	return false
}

// String is the reason's short name ("chat_abuse"), or "reason(N)".
func (r Reason) String() string {
	for _, row := range reasonTable {
		if row.reason == r {
			return row.name
		}
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// Title is the reason as players read it ("Chat Abuse"); "" when unknown.
func (r Reason) Title() string {
	for _, row := range reasonTable {
		if row.reason == r {
			return row.title
		}
	}
	return ""
}

// Code is r's wire code in set cs; 0 when r or cs is unknown.
func (r Reason) Code(cs CodeSet) int {
	for _, row := range reasonTable {
		if row.reason == r {
			switch cs {
			case CodesReport2:
				return row.report2
			case CodesMaster:
				return row.master
			}
		}
	}
	return 0
}

// ReasonFromCode maps a wire code of set cs to its reason.
func ReasonFromCode(cs CodeSet, code int) (Reason, bool) {
	for _, row := range reasonTable {
		if (cs == CodesReport2 && row.report2 == code) || (cs == CodesMaster && row.master == code) {
			return row.reason, true
		}
	}
	return 0, false
}

// ParseReason reads a reason's short name, case-insensitively.
func ParseReason(name string) (Reason, bool) {
	for _, row := range reasonTable {
		if strings.EqualFold(row.name, name) {
			return row.reason, true
		}
	}
	return 0, false
}

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
