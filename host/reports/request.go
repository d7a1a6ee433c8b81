package reports

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// Paths of the area, as the client posts them; phase 2's route table serves
// them with the handlers of the same name.
const (
	PathReport2     = "/rap/report2.php"                 // site URL; several reports per POST
	PathReport      = "/master/report/report"            // one report per POST
	PathReportInfo  = "/master/report/reportinforequest" // reporting status at login
	PathPlayerList  = "/rap/player_list.php"             // positional; no match data
	PathMatchList   = "/rap/match_list2.php"             // positional; no match data
	PathUnusedRap   = "/rap/report.php"                  // unused by the client (spec); not served
	maxMatchIDBytes = 64
	maxNameBytes    = 64
	maxMinute       = 24 * 60
)

// MaxPerRequest is the most reports one /rap/report2.php request may carry:
// a match has 9 other players; a request with more is not the client's and
// is refused whole.
const MaxPerRequest = 10

// Item is one report as parsed from a request: the raw wire values and
// what they mean. Problem is set when this item alone cannot be accepted
// (unknown type code, description over MaxRawTextBytes, empty name, bad
// minute); the other items of the request are unaffected.
type Item struct {
	ReporteeName string
	Code         int // the type code as sent
	Reason       reportsapi.Reason
	RawText      string
	Text         string
	Truncated    bool
	Match        string
	Minute       int
	Problem      error
}

// Report2Request is a parsed /rap/report2.php form.
type Report2Request struct {
	AccountID storage.AccountID
	Cookie    string
	Items     []Item
}

// MasterReportRequest is a parsed /master/report/report form.
type MasterReportRequest struct {
	ReporterID storage.AccountID
	Cookie     string
	Item       Item
}

// InfoRequest is a parsed /master/report/reportinforequest form.
type InfoRequest struct {
	AccountID storage.AccountID
	Cookie    string
}

type report2Form struct {
	AccountID string   `form:"account_id" doc:"the reporter's account id; must be the session's"`
	Cookie    string   `form:"cookie" doc:"session cookie"`
	Names     []string `form:"offenderName[]" doc:"one value per report: the reported player's nickname (1 to 10 values)"`
	Matches   []string `form:"match_id[]" doc:"per report: the match id, kept as sent (optional as a whole)"`
	Types     []string `form:"type[]" doc:"per report: reason code 1-6 of the specification's table, 5 Bad Nickname, 6 AFK"`
	Bodies    []string `form:"body[]" doc:"per report: the description, cut to reports.max_text_runes characters, 210 by default (optional as a whole)"`
	Times     []string `form:"time[]" doc:"per report: the minute of the match (optional as a whole)"`
}

// ParseReport2 reads a /rap/report2.php form. offenderName[] and type[]
// must be sent with the same number of values (1..MaxPerRequest);
// match_id[], body[] and time[] may be left out as a whole (empty text,
// minute 0) but, when sent, must have that number of values too. Arrays of
// different lengths refuse the whole request: pairing them up would risk
// filing one player's text against another. Errors match ErrBadRequest.
func ParseReport2(r *wire.Request, maxTextRunes int) (Report2Request, error) {
	var f report2Form
	if err := r.Decode(&f); err != nil {
		return Report2Request{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	id, err := parseAccountID("account_id", f.AccountID)
	if err != nil {
		return Report2Request{}, err
	}
	n := len(f.Names)
	switch {
	case n == 0:
		return Report2Request{}, fmt.Errorf("%w: no offenderName[]", ErrBadRequest)
	case n > MaxPerRequest:
		return Report2Request{}, fmt.Errorf("%w: %d reports in one request, at most %d", ErrBadRequest, n, MaxPerRequest)
	}
	for _, arr := range []struct {
		name     string
		values   []string
		optional bool
	}{{"type[]", f.Types, false}, {"match_id[]", f.Matches, true}, {"body[]", f.Bodies, true}, {"time[]", f.Times, true}} {
		if len(arr.values) == n || (arr.optional && len(arr.values) == 0) {
			continue
		}
		return Report2Request{}, fmt.Errorf("%w: %d values of %s for %d of offenderName[]", ErrBadRequest, len(arr.values), arr.name, n)
	}
	at := func(vs []string, i int) string {
		if i < len(vs) {
			return vs[i]
		}
		return ""
	}
	out := Report2Request{AccountID: id, Cookie: f.Cookie, Items: make([]Item, n)}
	for i := range n {
		it := Item{ReporteeName: strings.TrimSpace(f.Names[i]), RawText: at(f.Bodies, i), Match: strings.TrimSpace(at(f.Matches, i))}
		it.Problem = it.fill(SourceReport2, f.Types[i], at(f.Times, i), it.RawText, maxTextRunes)
		out.Items[i] = it
	}
	return out, nil
}

type masterReportForm struct {
	ReporterID  string `form:"reporter_id" doc:"the reporter's account id; must be the session's"`
	Cookie      string `form:"cookie" doc:"session cookie"`
	Name        string `form:"reportee_name" doc:"the reported player's nickname"`
	Reason      string `form:"reason_type" doc:"reason code 1-6 of the client's table, 5 AFK, 6 Bad Nickname"`
	Description string `form:"report_description" doc:"the description; the client's \\' escaping and trailing ' are undone, then cut to reports.max_text_runes characters (210 by default)"`
	Match       string `form:"match_id" doc:"the match id, kept as sent (optional)"`
}

// MasterReportForm is the form the game client posts to PathReport to
// report reportee for why with text (the load tester and "honmaster player
// report" send it).
func MasterReportForm(reporterID, cookie, reportee string, why reportsapi.Reason, text string) url.Values {
	return url.Values{"reporter_id": {reporterID}, "cookie": {cookie}, "reportee_name": {reportee},
		"reason_type": {strconv.Itoa(why.Code(reportsapi.CodesMaster))}, "report_description": {text}}
}

// ParseMasterReport reads a /master/report/report form. The description's
// quirk (\' for ' and one appended ') is undone in Item.Text; Item.RawText
// keeps it as received. This path sends no match id or minute; a match_id
// field is kept if a client sends one. A problem with the report itself is
// in Item.Problem; errors match ErrBadRequest.
func ParseMasterReport(r *wire.Request, maxTextRunes int) (MasterReportRequest, error) {
	var f masterReportForm
	if err := r.Decode(&f); err != nil {
		return MasterReportRequest{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	id, err := parseAccountID("reporter_id", f.ReporterID)
	if err != nil {
		return MasterReportRequest{}, err
	}
	it := Item{ReporteeName: strings.TrimSpace(f.Name), RawText: f.Description, Match: strings.TrimSpace(f.Match)}
	it.Problem = it.fill(SourceMaster, f.Reason, "", UndoMasterQuirk(f.Description), maxTextRunes)
	return MasterReportRequest{ReporterID: id, Cookie: f.Cookie, Item: it}, nil
}

type infoForm struct {
	AccountID string `form:"account_id" doc:"the account asking; must be the session's"`
	Cookie    string `form:"cookie" doc:"session cookie"`
}

// ParseInfoRequest reads a /master/report/reportinforequest form. Errors
// match ErrBadRequest.
func ParseInfoRequest(r *wire.Request) (InfoRequest, error) {
	var f infoForm
	if err := r.Decode(&f); err != nil {
		return InfoRequest{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	id, err := parseAccountID("account_id", f.AccountID)
	if err != nil {
		return InfoRequest{}, err
	}
	return InfoRequest{AccountID: id, Cookie: f.Cookie}, nil
}

// fill sets the item's reason, minute and text from the wire values and
// returns the item's own problem, if any.
func (it *Item) fill(src Source, code, minute, text string, maxTextRunes int) error {
	c, err := strconv.Atoi(strings.TrimSpace(code))
	if err != nil {
		return fmt.Errorf("%w: type %q", ErrUnknownReason, truncate(code))
	}
	it.Code = c
	reason, ok := reportsapi.ReasonFromCode(src.CodeSet(), c)
	if !ok {
		return fmt.Errorf("%w: type %d", ErrUnknownReason, c)
	}
	it.Reason = reason
	if minute = strings.TrimSpace(minute); minute != "" {
		m, err := strconv.Atoi(minute)
		if err != nil || m < 0 || m > maxMinute {
			return fmt.Errorf("%w: time %q is not a minute 0..%d", ErrBadRequest, truncate(minute), maxMinute)
		}
		it.Minute = m
	}
	switch {
	case it.ReporteeName == "":
		return fmt.Errorf("%w: empty player name", ErrUnknownPlayer)
	case len(it.ReporteeName) > maxNameBytes:
		return fmt.Errorf("%w: player name of %d bytes", ErrUnknownPlayer, len(it.ReporteeName))
	case len(it.Match) > maxMatchIDBytes:
		return fmt.Errorf("%w: match id of %d bytes", ErrBadRequest, len(it.Match))
	case len(it.RawText) > MaxRawTextBytes:
		return fmt.Errorf("%w: %d bytes", ErrTextTooLong, len(it.RawText))
	}
	it.Text, it.Truncated = CleanText(text, maxTextRunes)
	// Kept as sent but for bytes that are not UTF-8 (U+FFFD): the record
	// and the plugin's facts carry them in protobuf strings, which refuse
	// anything else, and a report that could never be stored was answered
	// as the server's fault.
	it.RawText, it.Match = strings.ToValidUTF8(it.RawText, "\uFFFD"), strings.ToValidUTF8(it.Match, "\uFFFD")
	return nil
}

func parseAccountID(field, s string) (storage.AccountID, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%w: %s %q is not an account id", ErrBadRequest, field, truncate(s))
	}
	return storage.AccountID(n), nil
}

func truncate(s string) string {
	if len(s) > 32 {
		return s[:32] + "..."
	}
	return s
}
