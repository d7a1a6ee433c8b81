package reports

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

func TestParseReport2LiteralBrackets(t *testing.T) {
	// The client may send the brackets unescaped; both spellings are one field.
	body := "account_id=7&cookie=c&offenderName[]=Bob&offenderName%5B%5D=Carol&type[]=5&type[]=6" +
		"&body[]=a+b&body[]=&match_id[]=1&match_id[]=2&time[]=3&time[]=4"
	got, err := ParseReport2(request(t, PathReport2, body), 210)
	if err != nil {
		t.Fatal(err)
	}
	if got.AccountID != 7 || got.Cookie != "c" || len(got.Items) != 2 {
		t.Fatalf("%+v", got)
	}
	want := []Item{
		{ReporteeName: "Bob", Code: 5, Reason: reportsapi.ReasonBadNickname, RawText: "a b", Text: "a b", Match: "1", Minute: 3},
		{ReporteeName: "Carol", Code: 6, Reason: reportsapi.ReasonAFK, Match: "2", Minute: 4},
	}
	for i := range want {
		if got.Items[i] != want[i] {
			t.Errorf("item %d: %+v, want %+v", i, got.Items[i], want[i])
		}
	}
}

func TestParseItemProblems(t *testing.T) {
	body := "account_id=7&cookie=c&offenderName[]=Bob&offenderName[]=Bob&offenderName[]=Bob&type[]=1&type[]=9&type[]=2" +
		"&time[]=1&time[]=1&time[]=x"
	got, err := ParseReport2(request(t, PathReport2, body), 210)
	if err != nil {
		t.Fatal(err)
	}
	if got.Items[0].Problem != nil || !errors.Is(got.Items[1].Problem, ErrUnknownReason) || !errors.Is(got.Items[2].Problem, ErrBadRequest) {
		t.Errorf("problems: %v / %v / %v", got.Items[0].Problem, got.Items[1].Problem, got.Items[2].Problem)
	}
}

func TestParseMasterReportAndInfo(t *testing.T) {
	got, err := ParseMasterReport(request(t, PathReport, masterBody("9", "c", " Bob ", "6", `you\'re bad'`)), 210)
	if err != nil {
		t.Fatal(err)
	}
	want := Item{ReporteeName: "Bob", Code: 6, Reason: reportsapi.ReasonBadNickname, RawText: `you\'re bad'`, Text: "you're bad"}
	if got.ReporterID != 9 || got.Cookie != "c" || got.Item != want {
		t.Errorf("%+v", got)
	}
	for _, body := range []string{"cookie=c", "account_id=0&cookie=c", "account_id=-1&cookie=c", "account_id=4294967296&cookie=c"} {
		if _, err := ParseInfoRequest(request(t, PathReportInfo, body)); !errors.Is(err, ErrBadRequest) {
			t.Errorf("ParseInfoRequest(%q) = %v", body, err)
		}
	}
	if r, err := ParseInfoRequest(request(t, PathReportInfo, "account_id=4294967295&cookie=c")); err != nil || r.AccountID != 4294967295 {
		t.Errorf("max id: %+v, %v", r, err)
	}
}

// FuzzCleanText: whatever arrives, the stored text is valid UTF-8, within
// the limit, and free of control characters.
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"abc def'", `it\'s'`, "\x1b[31m", "a\xffb", strings.Repeat("é", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		clean, truncated := CleanText(UndoMasterQuirk(s), 210)
		if !utf8.ValidString(clean) || utf8.RuneCountInString(clean) > 210 {
			t.Fatalf("invalid or long: %q", clean)
		}
		for _, r := range clean {
			if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
				t.Fatalf("control %U in %q", r, clean)
			}
		}
		if !truncated && utf8.RuneCountInString(clean) > 210 {
			t.Fatal("long text not marked truncated")
		}
	})
}
