package guides

import (
	"strings"
	"testing"
)

func TestWriteGuideTable(t *testing.T) {
	tally := &Tally{}
	tally.Apply("", 2, Ballot{}, Ballot{Vote: VoteUp})
	var b strings.Builder
	gs := []Guide{
		{Gid: 2, Hero: "Hero_A", AuthorName: "demo", Name: "It's mine", Up: 1, Down: 1, Premium: true},
		{Gid: 1, Hero: "Hero_A", AuthorName: "x", Name: "Hidden one", Hidden: true},
		{Gid: 3, Hero: "Hero_A", AuthorName: "line\r3\tHero_B", Name: "two\r\nlines"},
	}
	if err := WriteGuideTable(&b, gs, tally); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || strings.ContainsAny(b.String(), "\r") {
		t.Fatalf("table:\n%s", b.String())
	}
	if f := strings.Fields(lines[1]); f[0] != "1" || f[3] != "yes" || f[7] != "0.00" {
		t.Errorf("row 1 = %q", lines[1])
	}
	if !strings.Contains(lines[3], `"line\r3\tHero_B"`) || !strings.Contains(lines[3], `"two\r\nlines"`) {
		t.Errorf("row 3 = %q: author and name must be quoted", lines[3])
	}
	if f := strings.Fields(lines[2]); f[0] != "2" || f[2] != "yes" || f[4] != "2" || f[5] != "1" || f[6] != "1/1" || f[7] != "0.67" || !strings.Contains(lines[2], `"It's mine"`) {
		t.Errorf("row 2 = %q", lines[2])
	}
}
