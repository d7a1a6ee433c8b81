package reportsapi

import (
	"fmt"
	"strings"
	"time"

	"github.com/honmaster/masterserver/plugins/reports/reportsapi/internal/pb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Area is the player reports area: the one place its name is
// written.
var Area = sdk.RegisterArea("reports")

// Assess is the reports area's one decision: whether to accept one
// player report, and at which priority. The reporter's actor gathers the
// facts from its own records, asks the plugin, checks the decision
// (Decision.Validate) and files the report exactly as decided, or
// files nothing.
var Assess = sdk.NewDecision(sdk.DecisionDef[Facts, Decision]{
	Area: Area, Name: "assess", Version: 1,
	Facts:      sdk.ProtoCodec(reportFactsToProto, reportFactsFromProto, func() *pb.ReportFacts { return &pb.ReportFacts{} }),
	Result:     sdk.ProtoCodec(reportDecisionToProto, reportDecisionFromProto, func() *pb.ReportDecision { return &pb.ReportDecision{} }),
	CheckFacts: Facts.Validate,
	Check:      func(f Facts, d Decision) error { return d.Validate(f.Limits) },
})

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

// Limits are the bundled rule's numbers. Every one is a setting with a safe
// default (DefaultLimits); the host passes them in the facts so a plugin
// needs no configuration of its own.
type Limits struct {
	// PerDay is how many reports one reporter may file in Window.
	PerDay int
	// PerReportee is how many of those may name the same reportee.
	PerReportee int
	// MaxTextRunes is the longest description, in characters (runes).
	MaxTextRunes int
	// MaxPriority caps a report's priority.
	MaxPriority int
	// NewAccountAge: a reporter whose account is younger counts as new
	// (the bundled rule gives a new account's report the lowest
	// priority). 0: no account counts as new. Unlike the others it has no
	// default: WithDefaults keeps 0, so a host that sends none weighs
	// every account alike. Carried in whole seconds.
	NewAccountAge time.Duration
}

// DefaultLimits: a player reports at most the 9 others of a match, a few
// matches a day; 20 a day is generous for honest use and cheap for the
// server. Two reports a day against one player stop a grudge from filling
// the queue. 210 is the stock client's own limit.
var DefaultLimits = Limits{PerDay: 20, PerReportee: 2, MaxTextRunes: 210, MaxPriority: 10}

// WithDefaults returns l with every zero or negative field replaced by
// DefaultLimits' value: there is no "unlimited".
func (l Limits) WithDefaults() Limits {
	if l.PerDay <= 0 {
		l.PerDay = DefaultLimits.PerDay
	}
	if l.PerReportee <= 0 {
		l.PerReportee = DefaultLimits.PerReportee
	}
	if l.MaxTextRunes <= 0 {
		l.MaxTextRunes = DefaultLimits.MaxTextRunes
	}
	if l.MaxPriority <= 0 {
		l.MaxPriority = DefaultLimits.MaxPriority
	}
	return l
}

// Facts are what the host knows about one report when it asks whether to
// accept it. The reporter's counts come from its own stored reports, the
// counts about the reportee's other reporters from counts the host keeps
// beside the reports (in the same commits), so they are exact across
// restarts, and cost the same however many reports there are. (Their
// meaning did not change when the host stopped scanning the reports
// against the reportee to compute them.)
type Facts struct {
	Reporter uint32
	Reportee uint32
	// SameOwner: reporter and reportee are accounts of the same main
	// account (a player reporting their own sub-account).
	SameOwner bool
	Reason    Reason
	// TextLen is the description's length in runes as it would be stored.
	TextLen int
	// Match is the match id as the client sent it (never checked: the
	// server has no match data).
	Match string
	// ReporterRecentCount is how many reports the reporter filed in the
	// window before this one (including earlier ones of the same request).
	ReporterRecentCount int
	// ReporterToReporteeCount is how many of those name this reportee.
	ReporterToReporteeCount int
	// DistinctReportersOfReportee is how many other players have open
	// reports against the reportee.
	DistinctReportersOfReportee int
	Limits                      Limits
	// ReporterAge is how long ago the reporter's account was created, in
	// whole seconds rounded up (at least one second when known); 0 when
	// unknown (an account created before creation times were kept).
	ReporterAge time.Duration
	// NewReportersOfReportee is how many of DistinctReportersOfReportee
	// have an account younger than Limits.NewAccountAge (0 when that is
	// 0).
	NewReportersOfReportee int
}

// IsNew reports whether the reporter counts as new under lim: its age is
// known and below lim.NewAccountAge.
func (f Facts) IsNew(lim Limits) bool {
	return lim.NewAccountAge > 0 && f.ReporterAge > 0 && f.ReporterAge < lim.NewAccountAge
}

// Refusal says why a report was not accepted; RefusalNone for an accepted
// one.
type Refusal uint8

// Refusals of the bundled rule, and RefusalRule for an operator's plugin
// that refuses by a rule of its own.
const (
	RefusalNone          Refusal = 0
	RefusalUnknownReason Refusal = 1
	RefusalTextTooLong   Refusal = 2
	RefusalSelfReport    Refusal = 3
	RefusalDailyLimit    Refusal = 4
	RefusalReporteeLimit Refusal = 5
	RefusalRule          Refusal = 6
)

// refusalTable is the one table of refusals: name (logs) and the message a
// player or a tool reads.
var refusalTable = []struct {
	refusal Refusal
	name    string
	message string
}{
	{RefusalNone, "none", ""},
	{RefusalUnknownReason, "unknown_reason", "Unknown report type."},
	{RefusalTextTooLong, "text_too_long", "The description is too long."},
	{RefusalSelfReport, "self_report", "You cannot report yourself."},
	{RefusalDailyLimit, "daily_limit", "You have sent too many reports today. Try again tomorrow."},
	{RefusalReporteeLimit, "reportee_limit", "You have already reported this player today."},
	{RefusalRule, "rule", "The report was not accepted."},
}

// Valid reports whether r is in the table.
func (r Refusal) Valid() bool {
	for _, row := range refusalTable {
		if row.refusal == r {
			return true
		}
	}
	return false
}

// String is the refusal's name ("daily_limit"), or "refusal(N)".
func (r Refusal) String() string {
	for _, row := range refusalTable {
		if row.refusal == r {
			return row.name
		}
	}
	return fmt.Sprintf("refusal(%d)", uint8(r))
}

// Message is what a player reads about r.
func (r Refusal) Message() string {
	for _, row := range refusalTable {
		if row.refusal == r {
			return row.message
		}
	}
	return "The report was not accepted."
}

// Decision is a plugin's answer for one report.
type Decision struct {
	Accept   bool
	Refusal  Refusal // RefusalNone exactly when Accept
	Priority int     // 1..ReportLimits.MaxPriority when Accept, 0 otherwise
}

// Validate reports malformed facts with an error wrapping ErrInvalidFacts:
// an unknown reason, negative counts or a text length below zero. (A
// reason the plugin may refuse is a valid fact; the host never asks about
// a code it could not map.)
func (f Facts) Validate() error {
	switch {
	case !f.Reason.Valid():
		return fmt.Errorf("%w: unknown reason %d", sdk.ErrInvalidFacts, uint8(f.Reason))
	case f.TextLen < 0 || f.ReporterRecentCount < 0 || f.ReporterToReporteeCount < 0 || f.DistinctReportersOfReportee < 0 ||
		f.NewReportersOfReportee < 0 || f.NewReportersOfReportee > f.DistinctReportersOfReportee || f.ReporterAge < 0 || f.Limits.NewAccountAge < 0:
		return fmt.Errorf("%w: negative count in %+v", sdk.ErrInvalidFacts, f)
	}
	return nil
}

// Validate checks a decision against the one table of refusals and the
// limits: an accepted report has no refusal and a priority in
// 1..MaxPriority; a refused one names a known refusal and has no priority.
// Errors wrap ErrInvalidDecision; the host never repairs a decision.
func (d Decision) Validate(lim Limits) error {
	lim = lim.WithDefaults()
	switch {
	case d.Accept && d.Refusal != RefusalNone:
		return fmt.Errorf("%w: accepted with refusal %v", sdk.ErrInvalidDecision, d.Refusal)
	case d.Accept && (d.Priority < 1 || d.Priority > lim.MaxPriority):
		return fmt.Errorf("%w: priority %d outside 1..%d", sdk.ErrInvalidDecision, d.Priority, lim.MaxPriority)
	case !d.Accept && (d.Refusal == RefusalNone || !d.Refusal.Valid()):
		return fmt.Errorf("%w: refused with refusal %v", sdk.ErrInvalidDecision, d.Refusal)
	case !d.Accept && d.Priority != 0:
		return fmt.Errorf("%w: refused with priority %d", sdk.ErrInvalidDecision, d.Priority)
	}
	return nil
}
