package guides

import (
	"strings"
	"testing"
)

// TestImportRefusesInvisibleAuthor: an author name holding an invisible or
// text-direction character (which can make it show as another player's
// name) is refused at import (issue 22, item 12); a visible one, accented
// or not, is imported.
func TestImportRefusesInvisibleAuthor(t *testing.T) {
	archive := func(author string) []byte {
		return []byte(`{"Hero_A": [{"success": 1, "datetime": "05/09/21 03:18:47pm", "author_name": "` + author + `", "guide_name": "N", "rating": "0.50"}]}`)
	}
	for _, author := range []string{`de\u200bmo`, `\u202eomed`, `demo\u2066`, `de\u00admo`, `demo\u3164`} {
		gs, refused, err := ParseImport(archive(author), nil)
		if err != nil || len(gs) != 0 || len(refused) != 1 || !strings.Contains(refused[0].Problem, "author_name holds an invisible") {
			t.Errorf("author %s: guides %d, refused %v, err %v; want the guide refused for its author", author, len(gs), refused, err)
		}
	}
	for _, author := range []string{"demo", "José Ñandú", "Δήμος"} {
		if gs, refused, err := ParseImport(archive(author), nil); err != nil || len(refused) != 0 || len(gs) != 1 || gs[0].AuthorName != author {
			t.Errorf("author %q: refused %v, err %v", author, refused, err)
		}
	}
}
