package storage

import (
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/honmaster/masterserver/storage/internal/pb"
)

// Effects on several accounts. An effect (a gift from one account to
// another, a match's statistics) is applied by each participant's actor,
// one share per account, each share in that account's own batch (package
// actors drives them). Storage keeps two things for it:
//
//	f/<effect id:16>                  the effect record (pb.Effect): kind, payload,
//	                                  participants; written in the batch of the first
//	                                  share, deleted in the batch of the last (or by
//	                                  the global writer once every share is applied),
//	                                  so it exists exactly while the effect is unfinished
//	x/effects.applied/<id:4><eid:16>  (empty) account id applied its share of the
//	                                  effect: written in the share's own batch
//
// A share is applied only while the record exists and the account has no
// mark of it, so a repeat (a resumed effect, a second node resuming the
// same one) is a no-op. The marks of a finished effect are dropped by
// their account's next share (DropEffectMark), so an account keeps only
// the marks of effects still unfinished when it last applied a share.
// Like every account record, a mark goes with its account's deletion; the
// record belongs to no account and stays until its last share.
const prefixEffect = "f/"

// EffectID names one effect: 16 random bytes, unique without
// coordination between the nodes of a cluster.
type EffectID [16]byte

func (id EffectID) String() string { return hex.EncodeToString(id[:]) }

// Effect is the record of an unfinished effect.
type Effect struct {
	ID      EffectID
	Kind    string
	Payload []byte
	// Participants are the accounts whose shares apply, in order.
	Participants []AccountID
	Created      time.Time
}

func effectKey(id EffectID) []byte { return append([]byte(prefixEffect), id[:]...) }

func effectOf(id EffectID, m *pb.Effect) *Effect {
	e := &Effect{ID: id, Kind: m.Kind, Payload: m.Payload, Created: unixNano(m.CreatedUnixNano)}
	e.Participants = make([]AccountID, len(m.Participants))
	for i, p := range m.Participants {
		e.Participants[i] = AccountID(p)
	}
	return e
}

// PutEffect writes the record of effect e in the batch of the writer's
// account: the batch of its first share, so that the record and the share
// commit together or not at all.
func PutEffect(w AccountWriter, e *Effect) {
	m := &pb.Effect{Kind: e.Kind, Payload: e.Payload, CreatedUnixNano: e.Created.UnixNano()}
	m.Participants = make([]uint32, len(e.Participants))
	for i, p := range e.Participants {
		m.Participants[i] = uint32(p)
	}
	w.AccountWrites().b.setPB(effectKey(e.ID), m)
}

// DeleteEffect removes the record of effect id in the batch of the
// writer's account: the batch of its last share.
func DeleteEffect(w AccountWriter, id EffectID) {
	w.AccountWrites().b.del(effectKey(id))
}

// DeleteEffectGlobal removes the record of effect id through the global
// writer: for an effect whose last participant was deleted before its
// share, or whose last share was applied while an earlier one was still
// pending, so that no share is left to delete it.
// The write counts as one of the global keyspace effectsVersionName (no
// area can declare it), so that the global update commits it, sealed.
func DeleteEffectGlobal(w GlobalWriter, id EffectID) {
	gw := w.GlobalWrites()
	gw.touched[effectsVersionName] = true
	gw.b.del(effectKey(id))
}

// effectsVersionName is the global keyspace name under which the global
// writer's deletions of effect records are versioned (GlobalVersions).
const effectsVersionName = "effects"

func init() { declare("g", effectsVersionName) }

// Effect reads the record of effect id; ErrNotFound when there is none
// (never written, or finished).
func (db *DB) Effect(id EffectID) (*Effect, error) {
	var m pb.Effect
	err := db.view(effectKey(id), func(v []byte) error { return decodePB(v, &m) })
	if err != nil {
		return nil, fmt.Errorf("storage: effect %s: %w", id, err)
	}
	return effectOf(id, &m), nil
}

// EffectExists reports whether the record of effect id is stored (the
// effect is unfinished), without decoding it.
func (db *DB) EffectExists(id EffectID) (bool, error) {
	err := db.view(effectKey(id), func([]byte) error { return nil })
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrNotFound):
		return false, nil
	}
	return false, fmt.Errorf("storage: effect %s: %w", id, err)
}

// EachEffect calls fn with every unfinished effect, in id order, until fn
// errs. A record that does not decode ends the scan with its error.
func (db *DB) EachEffect(fn func(*Effect) error) error {
	return db.EachEffectFrom(EffectID{}, func(e *Effect, err error) error {
		if err != nil {
			return err
		}
		return fn(e)
	})
}

// EachEffectFrom calls fn with every unfinished effect whose id is from or
// after, in id order, until fn errs. A record that does not decode (or a
// key of the wrong length under the effects' prefix) is given to fn as an
// error wrapping ErrCorrupt, with the effect's id (zero for a bad key),
// and the scan goes on if fn returns nil: one damaged record does not hide
// the others.
func (db *DB) EachEffectFrom(from EffectID, fn func(e *Effect, err error) error) error {
	var m pb.Effect
	p := []byte(prefixEffect)
	return db.eng.scan(effectKey(from), prefixEnd(p), func(k, v []byte) error {
		var id EffectID
		if len(k) != len(prefixEffect)+len(id) {
			return fn(&Effect{}, fmt.Errorf("storage: effect: %w: key of %d bytes", ErrCorrupt, len(k)))
		}
		copy(id[:], k[len(prefixEffect):])
		if err := decodePB(v, &m); err != nil { // wraps ErrCorrupt
			return fn(&Effect{ID: id}, fmt.Errorf("storage: effect %s: %w", id, err))
		}
		return fn(effectOf(id, &m), nil)
	})
}

// effectMarks are the marks of the shares each account applied.
var effectMarks = NewAccountKeyspace[struct{}]("effects.applied", emptyCodec{})

// MarkEffect records, in the batch of the writer's account, that the
// account applied its share of effect id.
func MarkEffect(w AccountWriter, id EffectID) {
	_ = effectMarks.Put(w, string(id[:]), struct{}{}) // the empty codec cannot fail
}

// DropEffectMark removes the writer's mark of effect id.
func DropEffectMark(w AccountWriter, id EffectID) { effectMarks.Delete(w, string(id[:])) }

// EffectMarks lists the effects account acct holds a mark of.
func (db *DB) EffectMarks(acct AccountID) ([]EffectID, error) {
	var out []EffectID
	err := effectMarks.Each(db, acct, "", func(key string, _ struct{}) error {
		var id EffectID
		if len(key) != len(id) {
			return fmt.Errorf("storage: effect mark of account %d: %w: key of %d bytes", acct, ErrCorrupt, len(key))
		}
		copy(id[:], key)
		out = append(out, id)
		return nil
	})
	return out, err
}
