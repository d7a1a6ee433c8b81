package reports

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/honmaster/masterserver/wire/wiretest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the reply values")

// TestGolden pins every reply shape of the area in testdata/ and has real
// PHP read each one back (wire/wiretest).
func TestGolden(t *testing.T) {
	wiretest.Golden(t, "testdata", *update, []wiretest.Case{
		{Name: "report_accepted", Value: ReportReply{Success: true, ReportSuccess: ReportAccepted, ReportEnabled: true}},
		{Name: "report_failed", Value: failed(ErrUnknownPlayer)},
		{Name: "report_refused_limit", Value: ReportReply{ReportSuccess: ReportFailed, ReportEnabled: true,
			Message: (&RefusedError{Refusal: 5}).Refusal.Message()}},
		{Name: "report_disabled", Value: ReportReply{Success: true, ReportSuccess: ReportDisabled, Message: Message(ErrDisabled)}},
		{Name: "report2_accepted", Value: Report2Reply{"true", "1"}},
		{Name: "report2_accepted_three", Value: Report2Reply{"true", "3"}},
		{Name: "report2_failed", Value: Report2Reply{"false"}},
		{Name: "info_normal", Value: InfoReply{Success: true}},
		{Name: "info_suspended_popup", Value: InfoReply{Success: true, ForcePopup: true, Status: 2,
			Reason: "Chat Abuse - flaming, l'équipe", GuiltyLevel: 1, EndDate: "2026-11-26 12:00:00"}},
		{Name: "info_warning", Value: InfoReply{Success: true, Status: 1, Reason: "Feeding / Stat Manipulation", GuiltyLevel: 2,
			EndDate: "2026-11-30 12:00:00"}},
		{Name: "info_failed", Value: InfoReply{}},
		{Name: "player_list_empty", Value: PlayerList{}},
		{Name: "player_list_two", Value: PlayerList{Players: []PlayerSlot{{Slot: 0, Nickname: "Alice"}, {Slot: 6, Nickname: "Bob"}}}},
		{Name: "match_list_empty", Value: MatchList{}},
		{Name: "match_list_two", Value: MatchList{Matches: []string{"151234", "151240"}}},
	})
}

// TestGoldenPinned pins the shapes protocol-notes §6 prescribes, so a
// careless -update cannot change them.
func TestGoldenPinned(t *testing.T) {
	for name, want := range map[string]string{
		"report_accepted":   `a:5:{s:7:"success";b:1;s:14:"report_success";i:1;s:14:"report_enabled";b:1;s:16:"vested_threshold";i:5;i:0;b:1;}`,
		"report2_accepted":  `a:2:{i:0;s:4:"true";i:1;s:1:"1";}`,
		"report2_failed":    `a:1:{i:0;s:5:"false";}`,
		"player_list_empty": `a:1:{i:0;i:0;}`,
	} {
		got, err := os.ReadFile(filepath.Join("testdata", name+".golden"))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
}
