package reports

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/honmaster/masterserver/host/failure/detail"
	rules "github.com/honmaster/masterserver/plugins/reports"
)

// ErrUsage: a moderation command's arguments are wrong: a detail.Error of
// this kind says which. The CLI prints the command's usage with it.
var ErrUsage = errors.New("bad arguments")

// Limits of a resolution's arguments.
const (
	MaxResolveDays = 3650 // ten years; longer is a ban, which this area does not model
	MaxNoteRunes   = 500
)

// ListFilter selects reports for "honmaster reports list".
type ListFilter struct {
	Status   rules.Status // 0: any status
	Resolved bool         // with Status 0: only the resolved reports, whatever the verdict
	Reportee string       // "": any reportee; else the reportee's nickname, matched case-insensitively
}

// ParseListArgs reads "[--status S] [--reportee NAME]" (--data is the
// CLI's own flag and is removed before). The default status is open, the
// queue a moderator works from; --status resolved lists the resolved
// ones whatever their verdict (as the console's filter does), --status
// any all.
func ParseListArgs(args []string) (ListFilter, error) {
	fs := flag.NewFlagSet("reports list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	status := fs.String("status", "open", "")
	reportee := fs.String("reportee", "", "")
	if err := fs.Parse(args); err != nil {
		return ListFilter{}, detail.New(ErrUsage, "%w", err)
	}
	if fs.NArg() > 0 {
		return ListFilter{}, detail.New(ErrUsage, "unexpected argument %q", fs.Arg(0))
	}
	f := ListFilter{Reportee: strings.TrimSpace(*reportee)}
	switch *status {
	case "any":
	case "resolved":
		f.Resolved = true
	default:
		s, ok := rules.ParseStatus(*status)
		if !ok {
			return ListFilter{}, detail.New(ErrUsage, "--status %q is not one of %s, resolved, any", *status, statusNames())
		}
		f.Status = s
	}
	return f, nil
}

func statusNames() string {
	var names []string
	for _, s := range rules.Statuses() {
		names = append(names, s.String())
	}
	return strings.Join(names, ", ")
}

// Match reports whether r passes the filter.
func (f ListFilter) Match(r *Report) bool {
	if f.Status != 0 && r.Status() != f.Status || f.Resolved && r.Status() == rules.StatusOpen {
		return false
	}
	if f.Reportee != "" && !strings.EqualFold(f.Reportee, r.Reportee.Nickname) {
		return false
	}
	return true
}

// Sort orders reports as the queue shows them: highest priority first,
// then oldest first, then by ID.
func Sort(rs []Report) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := &rs[i], &rs[j]
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		if !a.Received.Equal(b.Received) {
			return a.Received.Before(b.Received)
		}
		if a.ID.Reporter != b.ID.Reporter {
			return a.ID.Reporter < b.ID.Reporter
		}
		return a.ID.Seq < b.ID.Seq
	})
}

// ResolveArgs is a parsed "honmaster reports resolve ID --action A --days N
// [--note T]".
type ResolveArgs struct {
	ID     ReportID
	Action rules.Action
	Days   int
	Note   string
}

// ParseResolveArgs reads the arguments of "reports resolve": the report ID
// (before or after the flags), --action dismiss|warn|suspend, --days N and
// --note T. A suspension needs --days 1..MaxResolveDays; a warning takes
// 0..MaxResolveDays (0 or none: DefaultWarningDays); a dismissal takes no
// days (a non-zero --days with dismiss is refused as a likely mistake). The
// note is at most MaxNoteRunes characters and is cleaned like report text.
func ParseResolveArgs(args []string) (ResolveArgs, error) {
	var idText string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		idText, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("reports resolve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	action := fs.String("action", "", "")
	days := fs.Int("days", 0, "")
	note := fs.String("note", "", "")
	if err := fs.Parse(args); err != nil {
		return ResolveArgs{}, detail.New(ErrUsage, "%w", err)
	}
	rest := fs.Args()
	if idText == "" && len(rest) > 0 {
		idText, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		return ResolveArgs{}, detail.New(ErrUsage, "unexpected argument %q", rest[0])
	}
	if idText == "" {
		return ResolveArgs{}, detail.New(ErrUsage, "the report ID is missing (see honmaster reports list)")
	}
	return CheckResolveArgs(idText, *action, *days, *note, func(field string) string { return "--" + field })
}

// CheckResolveArgs checks the fields of a resolution, with the rules of
// ParseResolveArgs: the report ID, the action (dismiss, warn or suspend),
// the days and the note. name words a field (action, days, note) as the
// operator gave it: "--days" on the command line, "days" in a form.
func CheckResolveArgs(idText, action string, days int, note string, name func(field string) string) (ResolveArgs, error) {
	id, err := ParseReportID(idText)
	if err != nil {
		return ResolveArgs{}, detail.New(ErrUsage, "%w", err)
	}
	a, ok := rules.ParseAction(action)
	if !ok {
		return ResolveArgs{}, detail.New(ErrUsage, "%s must be dismiss, warn or suspend", name("action"))
	}
	switch {
	case days < 0 || days > MaxResolveDays:
		return ResolveArgs{}, detail.New(ErrUsage, "%s %d outside 0..%d", name("days"), days, MaxResolveDays)
	case a == rules.ActionSuspend && days == 0:
		return ResolveArgs{}, detail.New(ErrUsage, "suspend needs %s 1..%d", name("days"), MaxResolveDays)
	case a == rules.ActionDismiss && days != 0:
		return ResolveArgs{}, detail.New(ErrUsage, "dismiss takes no %s", name("days"))
	case utf8.RuneCountInString(note) > MaxNoteRunes:
		return ResolveArgs{}, detail.New(ErrUsage, "%s longer than %d characters", name("note"), MaxNoteRunes)
	}
	clean, _ := CleanText(note, MaxNoteRunes)
	return ResolveArgs{ID: id, Action: a, Days: days, Note: clean}, nil
}

// Resolution is the resolution these arguments make, by moderator at now.
func (a ResolveArgs) Resolution(moderator string, now time.Time) Resolution {
	return Resolution{Report: a.ID, Action: a.Action, Days: a.Days, Note: a.Note, Moderator: moderator, Time: now}
}

// ErrAlreadyResolved: a report can be resolved once; a moderator who wants
// another verdict resolves another report of the same player. The
// detail.Error of this kind says when and how it was resolved.
var ErrAlreadyResolved = errors.New("report already resolved")

// ErrReporteeDeleted: a warning or suspension of a report whose reportee's
// account was deleted; there is no one to apply it to, and nothing is
// written (a dismissal is recorded). The detail.Error of this kind names
// the player.
var ErrReporteeDeleted = errors.New("the reported player was deleted")

// CheckResolvable refuses to resolve a report twice.
func CheckResolvable(r *Report) error {
	if r.Resolution != nil {
		return detail.New(ErrAlreadyResolved, "%s was %s at %s", r.ID, r.Status(), r.Resolution.Time.UTC().Format(time.RFC3339))
	}
	return nil
}

// TimeLayout is how the commands and the console show times (UTC).
const TimeLayout = "2006-01-02 15:04:05Z"

// FormatList writes one line per report, in the given order, and a count.
// Player-supplied text is quoted, so it cannot forge lines or send escape
// sequences to the operator's terminal.
func FormatList(w io.Writer, rs []Report) error {
	for i := range rs {
		r := &rs[i]
		if _, err := fmt.Fprintf(w, "%-12s %-9s p%-2d %s  %s -> %s  %s  %s\n", r.ID, r.Status(), r.Priority,
			r.Received.UTC().Format(TimeLayout), quote(r.Reporter.Nickname), quote(r.Reportee.Nickname),
			r.Reason, quote(Preview(r.Text, 60))); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%d report(s)\n", len(rs))
	return err
}

// FormatShow writes every field of one report, and the reportee's current
// moderation state at now when m is not nil; for a reportee deleted since
// the report was filed (r.ReporteeDeleted), that it was deleted instead.
func FormatShow(w io.Writer, r *Report, m *Moderation, now time.Time) error {
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "%-11s %s\n", k+":", v) }
	line("report", r.ID.String())
	line("status", r.Status().String())
	line("priority", strconv.Itoa(r.Priority))
	line("received", r.Received.UTC().Format(TimeLayout))
	line("via", r.Source.String())
	line("reporter", fmt.Sprintf("%s (account %d)", quote(r.Reporter.Nickname), r.Reporter.ID))
	deleted := ""
	if r.ReporteeDeleted {
		deleted = ", deleted"
	}
	line("reportee", fmt.Sprintf("%s (account %d%s)", quote(r.Reportee.Nickname), r.Reportee.ID, deleted))
	line("reason", fmt.Sprintf("%s (%s)", r.Reason.Title(), r.Reason))
	line("match", quote(r.Match))
	line("minute", strconv.Itoa(r.Minute))
	text := quote(r.Text)
	if r.Truncated {
		text += " (cut)"
	}
	line("text", text)
	line("raw text", quote(r.RawText))
	line("sysinfo", quote(r.SysInfo))
	if res := r.Resolution; res != nil {
		line("resolution", fmt.Sprintf("%s by %s at %s", res.Verdict(), quote(res.Moderator), res.Time.UTC().Format(TimeLayout)))
		if res.Note != "" {
			line("note", quote(res.Note))
		}
	}
	switch {
	case r.ReporteeDeleted:
		line("standing", "none: "+deletedText)
	case m != nil:
		line("standing", fmt.Sprintf("%s (guilty level %d)", m.StandingAt(now), m.GuiltyLevel))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// deletedText says that a report's reportee was deleted, where its
// standing would be shown.
const deletedText = "the player's account was deleted"

// FormatResolved writes the one-line confirmation of a resolution.
func FormatResolved(w io.Writer, r *Report, m Moderation, now time.Time) error {
	sentence := m.StandingSentence(now)
	if r.ReporteeDeleted {
		sentence = "was deleted (nothing else changed)"
	}
	_, err := fmt.Fprintf(w, "report %s %s; %s %s\n", r.ID, r.Status(), quote(r.Reportee.Nickname), sentence)
	return err
}

// StandingSentence words the effective standing at now as the end of a
// sentence about the player: "is in good standing", "is under a warning
// until T" or "is suspended until T".
func (m Moderation) StandingSentence(now time.Time) string {
	until := " until " + m.Ends(now).UTC().Format(TimeLayout)
	switch st := m.Effective(now); st {
	case rules.StandingNormal:
		return "is in good standing"
	case rules.StandingWarning:
		return "is under a warning" + until
	case rules.StandingSuspended:
		return "is suspended" + until
	default:
		return "has standing " + st.String() + until
	}
}

// Verdict is the resolution's action with its days ("suspend 3 day(s)",
// "dismiss").
func (res Resolution) Verdict() string {
	if res.Days > 0 {
		return fmt.Sprintf("%s %d day(s)", res.Action, res.Days)
	}
	return res.Action.String()
}

// StandingAt is the standing m gives at now, with its end unless normal
// ("suspended until 2026-11-26 17:54:40Z").
func (m Moderation) StandingAt(now time.Time) string {
	st := m.Effective(now)
	if st == rules.StandingNormal {
		return st.String()
	}
	return st.String() + " until " + m.Ends(now).UTC().Format(TimeLayout)
}

// quote is strconv.Quote: escapes every control character.
func quote(s string) string { return strconv.Quote(s) }

// Preview cuts s to n runes with an ellipsis.
func Preview(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n {
			break
		}
		k++
	}
	return s[:i] + "…"
}
