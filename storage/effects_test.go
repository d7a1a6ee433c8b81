package storage

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestEffectRecordsAndMarks: an effect's record round-trips, is listed
// while unfinished and goes with the batch that deletes it (an account's or
// the global writer's); an account's marks are its own and go with its
// deletion. On each engine.
func TestEffectRecordsAndMarks(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		e := &Effect{ID: EffectID{1, 2, 3}, Kind: "test.gift", Payload: []byte("p"),
			Participants: []AccountID{7, 3, 9}, Created: time.Unix(0, 42).UTC()}
		other := &Effect{ID: EffectID{9}, Kind: "test.gift", Participants: []AccountID{3, 7}, Created: time.Unix(0, 43).UTC()}
		if _, err := db.Effect(e.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("record before it is written: %v; want ErrNotFound", err)
		}
		commitRaw(t, db, func(b *Batch) {
			PutEffect(writerOf{b.ForAccount(7)}, e)
			PutEffect(writerOf{b.ForAccount(3)}, other)
			MarkEffect(writerOf{b.ForAccount(3)}, e.ID)
			MarkEffect(writerOf{b.ForAccount(3)}, other.ID)
		})
		got, err := db.Effect(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != e.ID || got.Kind != e.Kind || string(got.Payload) != "p" ||
			!slices.Equal(got.Participants, e.Participants) || !got.Created.Equal(e.Created) {
			t.Errorf("record read back: %+v; want %+v", got, e)
		}
		var listed []EffectID
		if err := db.EachEffect(func(e *Effect) error { listed = append(listed, e.ID); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(listed, []EffectID{e.ID, other.ID}) {
			t.Errorf("unfinished effects %v; want %v in id order", listed, []EffectID{e.ID, other.ID})
		}
		// From an id on: that id and the later ones (a recovery pass goes
		// on where the previous one stopped).
		for _, tt := range []struct {
			from EffectID
			want []EffectID
		}{{EffectID{1, 2, 3}, []EffectID{e.ID, other.ID}}, {EffectID{1, 2, 4}, []EffectID{other.ID}}, {EffectID{9, 0, 1}, nil}} {
			var from []EffectID
			if err := db.EachEffectFrom(tt.from, func(e *Effect, err error) error {
				from = append(from, e.ID)
				return err
			}); err != nil || !slices.Equal(from, tt.want) {
				t.Errorf("effects from %s: %v, %v; want %v", tt.from, from, err, tt.want)
			}
		}
		for id, want := range map[EffectID]bool{e.ID: true, other.ID: true, {4}: false} {
			if got, err := db.EffectExists(id); err != nil || got != want {
				t.Errorf("EffectExists(%s) = %v, %v; want %v", id, got, err, want)
			}
		}
		for _, acct := range []AccountID{7, 9} {
			if marks, err := db.EffectMarks(acct); err != nil || len(marks) != 0 {
				t.Errorf("marks of account %d: %v %v; want none", acct, marks, err)
			}
		}
		if marks, err := db.EffectMarks(3); err != nil || !slices.Equal(marks, []EffectID{e.ID, other.ID}) {
			t.Errorf("marks of account 3: %v %v", marks, err)
		}

		commitRaw(t, db, func(b *Batch) {
			DeleteEffect(writerOf{b.ForAccount(9)}, e.ID)
			DeleteEffectGlobal(batchGlobal{b.ForGlobal()}, other.ID)
			DropEffectMark(writerOf{b.ForAccount(3)}, e.ID)
		})
		for _, id := range []EffectID{e.ID, other.ID} {
			if _, err := db.Effect(id); !errors.Is(err, ErrNotFound) {
				t.Errorf("effect %s after its deletion: %v; want ErrNotFound", id, err)
			}
		}
		if marks, err := db.EffectMarks(3); err != nil || !slices.Equal(marks, []EffectID{other.ID}) {
			t.Errorf("marks of account 3 after one dropped: %v %v", marks, err)
		}
	})
}

// TestEffectMarksGoWithTheAccount: deleting an account removes its marks
// (they are a per-account keyspace), and leaves effect records alone.
func TestEffectMarksGoWithTheAccount(t *testing.T) {
	db := openMem(t)
	a := sampleAccount(5, "marked")
	e := &Effect{ID: EffectID{5}, Kind: "test.gift", Participants: []AccountID{6, 5}}
	commitRaw(t, db, func(b *Batch) {
		b.PutAccount(a, nil)
		b.PutLogin(a.Login, a.ID)
		PutEffect(writerOf{b.ForAccount(6)}, e)
		MarkEffect(writerOf{b.ForAccount(5)}, e.ID)
	})
	recs, err := db.AccountRecords(5)
	if err != nil {
		t.Fatal(err)
	}
	if recs.Counts["x/effects.applied"] != 1 {
		t.Errorf("records of the account: %v; want its effect mark among them", recs.Counts)
	}
	for _, k := range recs.keys {
		if string(k[:2]) == prefixEffect {
			t.Errorf("the account's records include the effect record %q: it belongs to no account", k)
		}
	}
}
