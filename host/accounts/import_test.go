package accounts

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// importSystem is an actor system over a fresh database of backend.
func importSystem(t *testing.T, backend string) *actors.System {
	t.Helper()
	if backend == "pebble" {
		return actorstest.New(t)
	}
	db, err := storage.OpenPostgres(storage.PostgresOptions{URL: storagetest.PostgresURL(t), MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	sys := actors.New(db, actors.Options{})
	t.Cleanup(func() { sys.Shutdown(); db.Close() })
	return sys
}

// An import creates the valid lines' accounts, batch after batch, and
// reports every other line with its number and why: a login stored
// already, one earlier in the file (in its batch or an earlier one), a
// look-alike of either, a line that is no account. Imported again, the
// file creates nothing and refuses every line as taken.
func TestImportOutcomes(t *testing.T) {
	g := srp.DefaultGroup()
	storedSalt := bytes.Repeat([]byte{0xa1}, 256)
	storedV := append([]byte{0x7f}, bytes.Repeat([]byte{0x3c}, 255)...)
	stored := fmt.Sprintf(`"salt":"%x","salt2":"Salt2FromOldServer","verifier":"%x"`, storedSalt, storedV)
	lines := []string{
		`{"login":"alice","password":"pw1","email":"alice@example.com","nickname":"Alice"}`, // 1
		`{"login":"bob",` + stored + `}`,       // 2
		``,                                     // 3 blank: skipped
		`{"login":"ALICE","password":"x"}`,     // 4 look-alike of line 1 (other batch)
		`{"login":"alice","password":"x"}`,     // 5 login of line 1
		`not json`,                             // 6
		`{"login":"carol","pasword":"x"}`,      // 7 unknown field
		`{"login":"dave"}`,                     // 8 no credentials
		`{"login":"bad login","password":"x"}`, // 9
		`{"login":"erin","password":"x",` + stored + `}`,               // 10 both kinds
		`{"login":"frank","salt":"0102","salt2":"s","verifier":"00"}`,  // 11 v = 0
		`{"login":"gina","password":"x","email":"<g@x>"}`,              // 12
		`{"login":"hank","password":"x","nickname":"a\u200bb"}`,        // 13
		`{"login":"old","password":"x"}`,                               // 14 stored before
		`{"login":"dеmo","password":"x"}`,                              // 15 Cyrillic e: mixed scripts
		`{"login":"ivy","password":"pw9"}`,                             // 16
		`{"login":"Ivy","password":"x"}`,                               // 17 look-alike in the same batch
		`{"login":"jo","password":"x","salt":""}`,                      // 18 empty stored fields: a password line
		`{"login":"kim","password":7}`,                                 // 19
		`{"login":"leo","password":"x"}{"login":"max","password":"y"}`, // 20
	}
	wantRefused := map[int]error{
		4: login.ErrLoginLookalike, 5: actors.ErrLoginTaken, 6: ErrBadImportLine, 7: ErrBadImportLine,
		8: ErrBadPassword, 9: ErrBadLogin, 10: ErrBadImportLine, 11: ErrBadImportLine, 12: ErrBadEmail,
		13: ErrBadNickname, 14: actors.ErrLoginTaken, 15: login.ErrLoginMixedScripts, 17: login.ErrLoginLookalike,
		19: ErrBadImportLine, 20: ErrBadImportLine,
	}
	wantCreated := []string{"alice", "bob", "ivy", "jo"}
	file := strings.Join(lines, "\n") + "\n"

	for _, backend := range []string{"pebble", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			sys := importSystem(t, backend)
			s := &Service{Group: g, Sys: sys}
			ctx := context.Background()
			if _, err := s.Create(ctx, Create{Login: "old", Password: "pw"}); err != nil {
				t.Fatal(err)
			}
			var refused []ImportRefusal
			progress := 0
			// Batches of 2 accounts (the refused lines ride along).
			res, err := s.Import(ctx, strings.NewReader(file), ImportOptions{Batch: 2,
				Refused:  func(r ImportRefusal) { refused = append(refused, r) },
				Progress: func(ImportResult) { progress++ }})
			if err != nil {
				t.Fatal(err)
			}
			// Verifiers: those of the lines whose login was not found
			// taken before (whether the batch before had committed by
			// then depends on timing), at least those created.
			if res.Lines != 20 || res.Created != len(wantCreated) || res.Refused != len(wantRefused) || res.Verifiers < 3 {
				t.Errorf("result %+v", res)
			}
			if progress < 2 {
				t.Errorf("%d progress calls, want one per batch (at least 2)", progress)
			}
			seen := map[int]bool{}
			for i, r := range refused {
				if i > 0 && r.Line <= refused[i-1].Line {
					t.Errorf("refusals out of line order: %d after %d", r.Line, refused[i-1].Line)
				}
				seen[r.Line] = true
				if want, ok := wantRefused[r.Line]; !ok || !errors.Is(r.Err, want) {
					t.Errorf("line %d refused: %v, want %v", r.Line, r.Err, want)
				}
			}
			for line := range wantRefused {
				if !seen[line] {
					t.Errorf("line %d not refused", line)
				}
			}
			for _, l := range wantCreated {
				id, err := sys.DB().LoginID(l)
				if err != nil {
					t.Errorf("%s not created: %v", l, err)
					continue
				}
				a, err := sys.Account(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				switch l {
				case "alice":
					if a.Email != "alice@example.com" || a.Nickname != "Alice" ||
						!bytes.Equal(a.SRP.Verifier, g.Verifier("alice", a.SRP.Salt, g.PasswordSecret("pw1", a.SRP.Salt2))) {
						t.Errorf("alice: %+v", a)
					}
				case "bob": // another server's credentials, kept as they were
					if !bytes.Equal(a.SRP.Salt, storedSalt) || a.SRP.Salt2 != "Salt2FromOldServer" || !bytes.Equal(a.SRP.Verifier, storedV) ||
						a.Email != "bob@example.invalid" || a.Nickname != "bob" {
						t.Errorf("bob: salt %s salt2 %q v %s %q %q", hex.EncodeToString(a.SRP.Salt[:4]), a.SRP.Salt2,
							hex.EncodeToString(a.SRP.Verifier[:4]), a.Email, a.Nickname)
					}
				}
				if a.Standing != 3 || a.Stats.RnkRating != 1500 || !a.IsNew {
					t.Errorf("%s: not created as account create creates one: %+v", l, a)
				}
			}
			// Created once, with their look-alike entries: the file again
			// creates nothing, and derives no verifier for a taken login.
			refused = nil
			res, err = s.Import(ctx, strings.NewReader(file), ImportOptions{Batch: 2,
				Refused: func(r ImportRefusal) { refused = append(refused, r) }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Created != 0 || res.Refused != 19 || res.Verifiers != 0 {
				t.Errorf("again: %+v", res)
			}
			for _, r := range refused {
				if r.Line == 1 || r.Line == 2 || r.Line == 16 || r.Line == 18 {
					if !errors.Is(r.Err, actors.ErrLoginTaken) {
						t.Errorf("again, line %d: %v", r.Line, r.Err)
					}
				}
			}
		})
	}
}

// A line longer than MaxImportLine is refused, and the lines after it
// are read.
func TestImportLongLine(t *testing.T) {
	s := &Service{Group: srp.DefaultGroup(), Sys: actorstest.New(t)}
	file := `{"login":"a","password":"` + strings.Repeat("x", MaxImportLine) + "\"}\n" + `{"login":"b","password":"p"}` // no final newline
	var refused []ImportRefusal
	res, err := s.Import(context.Background(), strings.NewReader(file), ImportOptions{
		Refused: func(r ImportRefusal) { refused = append(refused, r) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Created != 1 || len(refused) != 1 || refused[0].Line != 1 || !errors.Is(refused[0].Err, ErrBadImportLine) || res.Lines != 2 {
		t.Errorf("%+v %+v", res, refused)
	}
}

// A line's stored credentials are refused with what is wrong with them: a
// salt that is not hex is said to be not hex (it was called too long), a
// salt over 256 bytes too long.
func TestImportStoredCredentialsWorded(t *testing.T) {
	s := &Service{Group: srp.DefaultGroup(), Sys: actorstest.New(t)}
	v := hex.EncodeToString(append([]byte{0x7f}, bytes.Repeat([]byte{0x3c}, 255)...))
	line := func(login, salt, verifier string) string {
		return fmt.Sprintf(`{"login":%q,"salt":%q,"salt2":"s2","verifier":%q}`, login, salt, verifier)
	}
	file := strings.Join([]string{
		line("a", "zz", v),
		line("b", "abc", v),
		line("c", strings.Repeat("ab", 257), v),
		line("d", "0102", "zz"),
	}, "\n")
	want := map[int]string{
		1: "salt must be hex",
		2: "salt must be hex",
		3: "salt must be at most 256 bytes",
		4: "verifier must be hex",
	}
	var refused []ImportRefusal
	if _, err := s.Import(context.Background(), strings.NewReader(file), ImportOptions{
		Refused: func(r ImportRefusal) { refused = append(refused, r) }}); err != nil {
		t.Fatal(err)
	}
	if len(refused) != len(want) {
		t.Fatalf("refused %+v", refused)
	}
	for _, r := range refused {
		d, ok := detail.Of(r.Err, ErrBadImportLine)
		if !ok || !strings.HasPrefix(d, want[r.Line]) {
			t.Errorf("line %d refused: %q, want %q", r.Line, d, want[r.Line])
		}
	}
}

// An import that stops part way (its context ended: an admin command's
// time ran out) says up to which line every line was handled, and wrote
// nothing after it; the same file again finishes it.
func TestImportStopsCleanly(t *testing.T) {
	s := &Service{Group: srp.DefaultGroup(), Sys: actorstest.New(t)}
	var file strings.Builder
	for i := range 6 {
		fmt.Fprintf(&file, `{"login":"s%d","password":"p"}`+"\n", i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	res, err := s.Import(ctx, strings.NewReader(file.String()), ImportOptions{Batch: 2,
		Progress: func(ImportResult) { cancel() }})
	if !errors.Is(err, context.Canceled) || res.Lines != 2 || res.Created != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	for i := range 6 {
		_, err := s.Sys.DB().LoginID(fmt.Sprintf("s%d", i))
		if (i < 2) != (err == nil) {
			t.Errorf("s%d: %v", i, err)
		}
	}
	var refused int
	res, err = s.Import(context.Background(), strings.NewReader(file.String()), ImportOptions{Batch: 2,
		Refused: func(r ImportRefusal) {
			refused++
			if !errors.Is(r.Err, actors.ErrLoginTaken) || r.Line > 2 {
				t.Errorf("again: line %d %v", r.Line, r.Err)
			}
		}})
	if err != nil || res.Created != 4 || refused != 2 {
		t.Errorf("again: %+v %v", res, err)
	}
}

// An import says whether the batch after its last handled line may have
// been written: only when that batch's commit has an unknown outcome.
func TestImportSaysWhenTheLastBatchIsUnknown(t *testing.T) {
	var lose atomic.Bool // set once the first batch is in: the next commit's answer is lost
	db, err := storage.Open("", &storage.Options{InMemory: true, Knobs: &storage.TestingKnobs{CommitResult: func(err error) error {
		if err == nil && lose.Swap(false) {
			return errors.New("the answer was lost")
		}
		return err
	}}})
	if err != nil {
		t.Fatal(err)
	}
	sys := actors.New(db, actors.Options{})
	t.Cleanup(func() { sys.Shutdown(); db.Close() })
	s := &Service{Group: srp.DefaultGroup(), Sys: sys}
	var file strings.Builder
	for i := range 6 {
		fmt.Fprintf(&file, `{"login":"u%d","password":"p"}`+"\n", i)
	}
	res, err := s.Import(context.Background(), strings.NewReader(file.String()), ImportOptions{Batch: 2,
		Progress: func(r ImportResult) { lose.Store(r.Lines == 2) }})
	if !errors.Is(err, storage.ErrCommitUncertain) || res.Lines != 2 || !res.Unknown {
		t.Fatalf("%+v %v; want the batch after line 2 unknown", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = s.Import(ctx, strings.NewReader(file.String()), ImportOptions{Batch: 2})
	if !errors.Is(err, context.Canceled) || res.Unknown {
		t.Fatalf("stopped before a batch: %+v %v; want nothing unknown", res, err)
	}
}
