package accounts

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/srp"
)

// TestCreateEmail: an e-mail is stored only when it is a bare address
// (issue 22, item 13: a header injection, a NUL and markup were stored);
// the refusal's sentence names the rule.
func TestCreateEmail(t *testing.T) {
	sys := actorstest.New(t)
	s := &Service{Group: srp.DefaultGroup(), Sys: sys}
	ctx := context.Background()
	for i, email := range []string{
		"x\r\nBcc: y@z",
		"x@z\r\nBcc: y@z",
		"x@z\n",
		"a\x00b@example.com",
		"<script>alert(1)</script>@example.com",
		"x@<script>",
		"Bob <bob@example.com>",
		"<bob@example.com>",
		"bob@example.com (work)",
		`"bob"@example.com`,
		"bob smith@example.com",
		"bob@example.com\u202e",
		"bo\u200bb@example.com",
		"bob@example.com\x7f",
		"nope",
		"@example.com",
		"bob@",
		// A domain without a dot (issue 36 item 5).
		"bob@localhost",
		"bob@example",
		"bob@example.",
		"bob@.example",
		"bob@example..com",
	} {
		_, err := s.Create(ctx, Create{Login: "m" + string(rune('a'+i)), Password: "pw", Email: email})
		if !errors.Is(err, ErrBadEmail) {
			t.Errorf("e-mail %+q: %v, want ErrBadEmail", email, err)
			continue
		}
		if msg := RuleMessage(err); !strings.Contains(msg, "plain address") || strings.Contains(msg, "accounts:") {
			t.Errorf("e-mail %+q: message %q", email, msg)
		}
	}
	for i, email := range []string{"bob@example.com", "a.b+tag@sub.example.org", "josé@example.com", ""} {
		a, err := s.Create(ctx, Create{Login: "ok" + string(rune('a'+i)), Password: "pw", Email: email})
		if err != nil {
			t.Errorf("e-mail %q: %v", email, err)
		} else if email != "" && a.Email != email {
			t.Errorf("e-mail %q stored as %q", email, a.Email)
		}
	}
}
