package sdk

import (
	"fmt"
	"strings"
	"time"

	"github.com/honmaster/masterserver/plugins/sdk/internal/pb"
)

// AreaReports is the player reports area: the one place its name is
// written.
var AreaReports = RegisterArea("reports")

// ReportsAssess is the reports area's one decision: whether to accept one
// player report, and at which priority. The reporter's actor gathers the
// facts from its own records, asks the plugin, checks the decision
// (ReportDecision.Validate) and files the report exactly as decided, or
// files nothing.
var ReportsAssess = NewDecision(DecisionDef[ReportFacts, ReportDecision]{
	Area: AreaReports, Name: "assess", Version: 1,
	Facts:      ProtoCodec(reportFactsToProto, reportFactsFromProto, func() *pb.ReportFacts { return &pb.ReportFacts{} }),
	Result:     ProtoCodec(reportDecisionToProto, reportDecisionFromProto, func() *pb.ReportDecision { return &pb.ReportDecision{} }),
	CheckFacts: ReportFacts.Validate,
	Check:      func(f ReportFacts, d ReportDecision) error { return d.Validate(f.Limits) },
})

// ReportReason is why a player was reported, stored as its meaning, never as the
// raw code of the path it came by. Its numeric value is the specification's
// code (the /rap/report2.php code), which is also what a stored record and
// a plugin see.
type ReportReason uint8

// Reasons, in the specification's order.
const (
	ReasonChatAbuse     ReportReason = 1 // Chat Abuse
	ReasonFeeding       ReportReason = 2 // Feeding / Stat Manipulation
	ReasonImpersonation ReportReason = 3 // Impersonating Staff
	ReasonAbilityAbuse  ReportReason = 4 // Ability / Item Abuse
	ReasonBadNickname   ReportReason = 5 // Bad Nickname / Clan Name
	ReasonAFK           ReportReason = 6 // Refusal to Participate / Avoiding AFK
)

// ReportCodeSet names a way of numbering reasons on the wire.
type ReportCodeSet uint8

// The two numberings of the stock client (protocol-notes §6): the client's
// own codes have 5 = AFK and 6 = Bad Nickname; it sends them unchanged to
// /master/report/report and swaps 5 and 6 for /rap/report2.php, so the
// specification's table holds for report2.php only.
const (
	CodesReport2 ReportCodeSet = iota // /rap/report2.php: the specification's table
	CodesMaster                       // /master/report/report: 5 and 6 swapped
)

// reportReasonTable is the one table of reasons: name (CLI, logs), title (what a
// player or moderator reads) and the wire code per ReportCodeSet.
var reportReasonTable = []struct {
	reason  ReportReason
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
func ReportReasons() []ReportReason {
	out := make([]ReportReason, len(reportReasonTable))
	for i, row := range reportReasonTable {
		out[i] = row.reason
	}
	return out
}

// Valid reports whether r is in the table.
func (r ReportReason) Valid() bool {
	for _, row := range reportReasonTable {
		if row.reason == r {
			return true
		}
	}
	return false
}

// String is the reason's short name ("chat_abuse"), or "reason(N)".
func (r ReportReason) String() string {
	for _, row := range reportReasonTable {
		if row.reason == r {
			return row.name
		}
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// Title is the reason as players read it ("Chat Abuse"); "" when unknown.
func (r ReportReason) Title() string {
	for _, row := range reportReasonTable {
		if row.reason == r {
			return row.title
		}
	}
	return ""
}

// Code is r's wire code in set cs; 0 when r or cs is unknown.
func (r ReportReason) Code(cs ReportCodeSet) int {
	for _, row := range reportReasonTable {
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

// ReportReasonFromCode maps a wire code of set cs to its reason.
func ReportReasonFromCode(cs ReportCodeSet, code int) (ReportReason, bool) {
	for _, row := range reportReasonTable {
		if (cs == CodesReport2 && row.report2 == code) || (cs == CodesMaster && row.master == code) {
			return row.reason, true
		}
	}
	return 0, false
}

// ParseReportReason reads a reason's short name, case-insensitively.
func ParseReportReason(name string) (ReportReason, bool) {
	for _, row := range reportReasonTable {
		if strings.EqualFold(row.name, name) {
			return row.reason, true
		}
	}
	return 0, false
}

// Status is where a stored report stands in moderation.

// ReportLimits are the bundled rule's numbers. Every one is a setting with a safe
// default (DefaultReportLimits); the host passes them in the facts so a plugin
// needs no configuration of its own.
type ReportLimits struct {
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

// DefaultReportLimits: a player reports at most the 9 others of a match, a few
// matches a day; 20 a day is generous for honest use and cheap for the
// server. Two reports a day against one player stop a grudge from filling
// the queue. 210 is the stock client's own limit.
var DefaultReportLimits = ReportLimits{PerDay: 20, PerReportee: 2, MaxTextRunes: 210, MaxPriority: 10}

// WithDefaults returns l with every zero or negative field replaced by
// DefaultReportLimits' value: there is no "unlimited".
func (l ReportLimits) WithDefaults() ReportLimits {
	if l.PerDay <= 0 {
		l.PerDay = DefaultReportLimits.PerDay
	}
	if l.PerReportee <= 0 {
		l.PerReportee = DefaultReportLimits.PerReportee
	}
	if l.MaxTextRunes <= 0 {
		l.MaxTextRunes = DefaultReportLimits.MaxTextRunes
	}
	if l.MaxPriority <= 0 {
		l.MaxPriority = DefaultReportLimits.MaxPriority
	}
	return l
}

// ReportFacts are what the host knows about one report when it asks whether to
// accept it. The reporter's counts come from its own stored reports, the
// counts about the reportee's other reporters from counts the host keeps
// beside the reports (in the same commits), so they are exact across
// restarts, and cost the same however many reports there are. (Their
// meaning did not change when the host stopped scanning the reports
// against the reportee to compute them.)
type ReportFacts struct {
	Reporter uint32
	Reportee uint32
	// SameOwner: reporter and reportee are accounts of the same main
	// account (a player reporting their own sub-account).
	SameOwner bool
	Reason    ReportReason
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
	Limits                      ReportLimits
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
func (f ReportFacts) IsNew(lim ReportLimits) bool {
	return lim.NewAccountAge > 0 && f.ReporterAge > 0 && f.ReporterAge < lim.NewAccountAge
}

// ReportRefusal says why a report was not accepted; RefusalNone for an accepted
// one.
type ReportRefusal uint8

// Refusals of the bundled rule, and RefusalRule for an operator's plugin
// that refuses by a rule of its own.
const (
	RefusalNone          ReportRefusal = 0
	RefusalUnknownReason ReportRefusal = 1
	RefusalTextTooLong   ReportRefusal = 2
	RefusalSelfReport    ReportRefusal = 3
	RefusalDailyLimit    ReportRefusal = 4
	RefusalReporteeLimit ReportRefusal = 5
	RefusalRule          ReportRefusal = 6
)

// reportRefusalTable is the one table of refusals: name (logs) and the message a
// player or a tool reads.
var reportRefusalTable = []struct {
	refusal ReportRefusal
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
func (r ReportRefusal) Valid() bool {
	for _, row := range reportRefusalTable {
		if row.refusal == r {
			return true
		}
	}
	return false
}

// String is the refusal's name ("daily_limit"), or "refusal(N)".
func (r ReportRefusal) String() string {
	for _, row := range reportRefusalTable {
		if row.refusal == r {
			return row.name
		}
	}
	return fmt.Sprintf("refusal(%d)", uint8(r))
}

// Message is what a player reads about r.
func (r ReportRefusal) Message() string {
	for _, row := range reportRefusalTable {
		if row.refusal == r {
			return row.message
		}
	}
	return "The report was not accepted."
}

// ReportDecision is a plugin's answer for one report.
type ReportDecision struct {
	Accept   bool
	Refusal  ReportRefusal // RefusalNone exactly when Accept
	Priority int           // 1..ReportLimits.MaxPriority when Accept, 0 otherwise
}

// Validate reports malformed facts with an error wrapping ErrInvalidFacts:
// an unknown reason, negative counts or a text length below zero. (A
// reason the plugin may refuse is a valid fact; the host never asks about
// a code it could not map.)
func (f ReportFacts) Validate() error {
	switch {
	case !f.Reason.Valid():
		return fmt.Errorf("%w: unknown reason %d", ErrInvalidFacts, uint8(f.Reason))
	case f.TextLen < 0 || f.ReporterRecentCount < 0 || f.ReporterToReporteeCount < 0 || f.DistinctReportersOfReportee < 0 ||
		f.NewReportersOfReportee < 0 || f.NewReportersOfReportee > f.DistinctReportersOfReportee || f.ReporterAge < 0 || f.Limits.NewAccountAge < 0:
		return fmt.Errorf("%w: negative count in %+v", ErrInvalidFacts, f)
	}
	return nil
}

// Validate checks a decision against the one table of refusals and the
// limits: an accepted report has no refusal and a priority in
// 1..MaxPriority; a refused one names a known refusal and has no priority.
// Errors wrap ErrInvalidDecision; the host never repairs a decision.
func (d ReportDecision) Validate(lim ReportLimits) error {
	lim = lim.WithDefaults()
	switch {
	case d.Accept && d.Refusal != RefusalNone:
		return fmt.Errorf("%w: accepted with refusal %v", ErrInvalidDecision, d.Refusal)
	case d.Accept && (d.Priority < 1 || d.Priority > lim.MaxPriority):
		return fmt.Errorf("%w: priority %d outside 1..%d", ErrInvalidDecision, d.Priority, lim.MaxPriority)
	case !d.Accept && (d.Refusal == RefusalNone || !d.Refusal.Valid()):
		return fmt.Errorf("%w: refused with refusal %v", ErrInvalidDecision, d.Refusal)
	case !d.Accept && d.Priority != 0:
		return fmt.Errorf("%w: refused with priority %d", ErrInvalidDecision, d.Priority)
	}
	return nil
}
