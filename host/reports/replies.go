package reports

import "github.com/honmaster/masterserver/wire"

// ReportSuccess is report_success of a /master/report/report reply, as the
// client reads it (protocol-notes §6).
type ReportSuccess int

// Values of report_success.
const (
	ReportAccepted ReportSuccess = 1
	ReportFailed   ReportSuccess = 2
	ReportDisabled ReportSuccess = 3
)

// SuccessFlag is success of a /master/report/report reply. The client shows
// "submission failed" when the value reads as the text false
// (protocol-notes §6). True is written b:1, the compatible success; false
// is written as the string "false", which reads as that text whatever way
// the client turns values into text (a PHP false could read as "" or "0").
type SuccessFlag bool

// AppendPHP writes b:1; or s:5:"false";.
func (s SuccessFlag) AppendPHP(dst []byte) ([]byte, error) {
	if s {
		return append(dst, "b:1;"...), nil
	}
	return append(dst, `s:5:"false";`...), nil
}

// ReportReply answers /master/report/report. On acceptance: success true,
// report_success 1, report_enabled true. On any failure success is "false"
// (the client then shows "submission failed") and report_success 2, except
// when reporting is disabled: success true, report_success 3,
// report_enabled false, so the client shows its "disabled" text. message
// is an extra the client does not read: the reason in words, for tools and
// support; it is left out on success.
type ReportReply struct {
	Success       SuccessFlag   `php:"success"`
	ReportSuccess ReportSuccess `php:"report_success"`
	ReportEnabled bool          `php:"report_enabled"`
	Message       string        `php:"message,omitempty"`
	wire.Extras
}

// Report2Reply answers /rap/report2.php. The client ignores its body and
// shows success whenever the request completes; it is still a well-formed
// PHP array, as another implementation answered: ["true", "<n>"] when n >= 1
// reports were accepted, ["false"] when none was.
type Report2Reply []string

// InfoReply answers /master/report/reportinforequest with the fields the
// client's reporting-status handler takes (protocol-notes §6):
//
//	success      bool    false only when the request or its session is bad
//	forcePopup   bool    true once per warning or suspension, until shown
//	status       int     0 normal, 1 warning, 2 suspended, 3 observed, 4 observed with warning
//	reason       string  the reason's title, then " - " and the moderator's note if any; "" when normal
//	guiltyLevel  int     warnings and suspensions the account ever received
//	endDate      string  "YYYY-MM-DD hh:mm:ss" UTC, when the warning or suspension ends; "" when normal
//
// then the two extras.
type InfoReply struct {
	Success     bool   `php:"success"`
	ForcePopup  bool   `php:"forcePopup"`
	Status      int    `php:"status"`
	Reason      string `php:"reason"`
	GuiltyLevel int    `php:"guiltyLevel"`
	EndDate     string `php:"endDate"`
	wire.Extras
}

// PlayerSlot is one player of a match as /rap/player_list.php lists it.
type PlayerSlot struct {
	Slot     int // 0..9; 0 is the first team's first slot
	Nickname string
}

// PlayerList is the positional reply of /rap/player_list.php: index 0 is 1
// when players were found and 0 otherwise; index 1+s holds the nickname of
// slot s (missing when the slot is empty) and index 11+s the slot id s
// (an int). The server has no match data, so it answers the empty list:
// a:1:{i:0;i:0;}.
type PlayerList struct {
	Players []PlayerSlot
}

// AppendPHP writes the positional array. Slots outside 0..9 are skipped.
func (p PlayerList) AppendPHP(dst []byte) ([]byte, error) {
	a := wire.NewArray()
	found := 0
	for _, pl := range p.Players {
		if pl.Slot >= 0 && pl.Slot <= 9 {
			found = 1
		}
	}
	a.Set(0, found)
	for _, pl := range p.Players {
		if pl.Slot >= 0 && pl.Slot <= 9 {
			a.Set(1+pl.Slot, pl.Nickname)
		}
	}
	for _, pl := range p.Players {
		if pl.Slot >= 0 && pl.Slot <= 9 {
			a.Set(11+pl.Slot, pl.Slot)
		}
	}
	return a.AppendPHP(dst)
}

// MatchList is the positional reply of /rap/match_list2.php: index 0 is 1
// when matches follow and 0 when none does, then one match id (a string)
// per index. The server has no match data: it answers a:1:{i:0;i:0;}.
type MatchList struct {
	Matches []string
}

// AppendPHP writes the positional array.
func (m MatchList) AppendPHP(dst []byte) ([]byte, error) {
	a := wire.NewArray()
	if len(m.Matches) == 0 {
		a.Set(0, 0)
	} else {
		a.Set(0, 1)
	}
	for _, id := range m.Matches {
		a.Append(id)
	}
	return a.AppendPHP(dst)
}

var (
	_ wire.Marshaler = PlayerList{}
	_ wire.Marshaler = MatchList{}
	_ wire.Marshaler = SuccessFlag(false)
)
