package console

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/honmaster/masterserver/actors"
)

// TestOperatorErrorIsASentence: the failures an operator meets in the
// console are sentences without the storage's or the actors' internals:
// the storage's refusal of text that is not UTF-8 read
// `encode "a/": string field contains invalid UTF-8`, a taken login
// `login taken: "x"`, a timeout `ask timeout`.
func TestOperatorErrorIsASentence(t *testing.T) {
	_, utf8Err := proto.Marshal(wrapperspb.String("a\xffb"))
	if utf8Err == nil {
		t.Fatal("protobuf stored text that is not UTF-8")
	}
	for err, want := range map[error]string{
		fmt.Errorf("storage: encode %q: %w", "a/", utf8Err):            "not valid UTF-8 text",
		fmt.Errorf("%w: %q", actors.ErrLoginTaken, "x"):                "already taken",
		fmt.Errorf("%w: %q: not found", actors.ErrBadParent, "nobody"): "main account must be an existing account",
		actors.ErrTimeout: "did not answer in time",
	} {
		got := operatorError(err)
		if !strings.Contains(got, want) {
			t.Errorf("operatorError(%q) = %q, want it to say %q", err, got, want)
		}
		for _, internal := range []string{"encode", "string field", "actors", "storage", "ask timeout", "login taken"} {
			if strings.Contains(got, internal) {
				t.Errorf("operatorError(%q) = %q: it says %q", err, got, internal)
			}
		}
	}
}
