package actors

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// Effects on several accounts, exactly once (docs/effects.md). An area
// registers a kind of effect with the function that applies one account's
// share of it (RegisterEffect); EffectKind.Start applies an effect's
// shares one after the other, each through its own account's actor:
//
//   - the first share commits together with the effect's record
//     (storage.PutEffect), in the first participant's batch: if the first
//     share refuses (the sender of a gift lacks the tickets), nothing at
//     all is written and the effect never happened;
//   - every later share reads the record and its own account's mark of the
//     effect first, and is a no-op once the account applied it (the mark,
//     written in the share's batch) or the effect finished (no record);
//   - the last share deletes the record in its own batch: the effect is
//     done. (If a share before it failed, the shares after the failed one
//     are applied all the same, and the last one marks its account instead;
//     the record is deleted through the global writer once every share is
//     applied: see driveEffect.)
//
// Once the first share committed, the others are applied before Start
// returns or, if one fails (a crash, a full disk, a timeout), by the
// recovery pass (ResumeEffects), which a server's System runs at start
// and then every Options.EffectRetry: a share is never lost and never
// applied twice. No actor waits for another: the shares are driven from the
// caller's goroutine (or the recovery's), one actor at a time, so crossing
// effects (two gifts in opposite directions) cannot deadlock. In cluster
// mode each share goes through System.Apply, hence through whichever
// activation owns the account, fenced by its owner epoch: the mark and the
// share commit in one fenced batch, so two nodes resuming one effect apply
// each share once.

// EffectFunc applies account tx.ID()'s share of effect e: share is its
// index in e.Participants. It runs inside the account's actor, as a
// Change's Apply does, and what it writes through tx commits in one batch
// with the effect's bookkeeping. It must decide from e and the account
// alone (it may run again after a crash, on the state as stored). Only the
// first share may refuse: its error is Start's, and nothing is written. A
// later share must not refuse (the first one committed the effect): its
// error leaves the effect unfinished, retried at every recovery pass.
type EffectFunc func(tx *Tx, e *storage.Effect, share int) error

// EffectKind is a registered kind of effect.
type EffectKind struct {
	name  string
	apply EffectFunc
}

// Name is the kind's name, as stored in its effects' records.
func (k *EffectKind) Name() string { return k.name }

var (
	effectKindName = regexp.MustCompile(`^[a-z][a-z0-9_.-]{0,63}$`)
	effectKindsMu  sync.Mutex
	effectKinds    = map[string]*EffectKind{}
)

// RegisterEffect registers a kind of effect, at package level or from an
// area's init: name ([a-z0-9_.-], conventionally "<area>.<effect>") is
// stored in every record of the kind, so never rename it. A bad name or a
// name registered twice panics.
func RegisterEffect(name string, apply EffectFunc) *EffectKind {
	if !effectKindName.MatchString(name) || apply == nil {
		panic(fmt.Sprintf("actors: effect kind %q: want a name matching %s and an apply function", name, effectKindName))
	}
	effectKindsMu.Lock()
	defer effectKindsMu.Unlock()
	if effectKinds[name] != nil {
		panic(fmt.Sprintf("actors: effect kind %q registered twice", name))
	}
	k := &EffectKind{name: name, apply: apply}
	effectKinds[name] = k
	return k
}

func effectKind(name string) *EffectKind {
	effectKindsMu.Lock()
	defer effectKindsMu.Unlock()
	return effectKinds[name]
}

// Bounds of one effect. The payload is stored once, in the effect's
// record, and read by each later share: 1 MiB holds a recorded match of
// the most players the matches area allows with every field it keeps
// (about 10 KiB a player at most).
const (
	MaxEffectParticipants = 64
	MaxEffectPayload      = 1 << 20
)

// ErrBadEffect refuses an effect Start cannot apply: no participant, too
// many, one named twice, or a payload too large. Nothing was written.
var ErrBadEffect = fmt.Errorf("actors: an effect needs 1 to %d distinct accounts and a payload of at most %d KiB",
	MaxEffectParticipants, MaxEffectPayload>>10)

// errShareDone ends a share's change with nothing written: its account
// applied it already, or the effect finished.
var errShareDone = errors.New("actors: share already applied")

// Start applies an effect of kind k with payload to participants, in
// order, each through its own actor (see the top of this file), and
// returns its id. Call it from a request's goroutine, never from inside a
// Change (an actor must not wait for another).
//
//   - A participant that does not exist is refused (ErrNoAccount) before
//     anything runs. One deleted while the effect runs loses its share
//     (a deleted account keeps nothing).
//   - An error of the first share (the kind's refusal, ErrNoAccount, a
//     full disk) is returned as it is, and nothing was written, unless it
//     is a commit of unknown outcome (storage.ErrCommitUncertain, or a
//     timeout): then the effect may have started, and if it did the
//     recovery pass finishes it.
//   - nil: the first share committed, so the effect will be applied whole.
//     The other shares were applied too, unless one failed: then the
//     recovery pass applies the rest, at the latest Options.EffectRetry
//     after the failure clears, or at the next start after a crash.
func (k *EffectKind) Start(ctx context.Context, s *System, payload []byte, participants ...storage.AccountID) (storage.EffectID, error) {
	var id storage.EffectID
	if n := len(participants); n == 0 || n > MaxEffectParticipants || len(payload) > MaxEffectPayload {
		return id, ErrBadEffect
	}
	if sorted := slices.Sorted(slices.Values(participants)); len(slices.Compact(sorted)) != len(participants) {
		return id, ErrBadEffect
	}
	for _, p := range participants[1:] { // the first one's actor finds out itself
		switch ok, err := s.db.AccountExists(p); {
		case err != nil:
			return id, err
		case !ok:
			return id, fmt.Errorf("%w: %d", ErrNoAccount, p)
		}
	}
	_, _ = rand.Read(id[:]) // never fails (crypto/rand)
	e := &storage.Effect{ID: id, Kind: k.name, Payload: slices.Clone(payload),
		Participants: slices.Clone(participants), Created: time.Now()}
	if _, err := s.applyShare(ctx, k, e, 0, false); err != nil {
		return id, err
	}
	// The effect is committed: its other shares must not depend on the
	// request's cancellation (each still has the system's AskTimeout),
	// nor on its having been forwarded here: a forwarded request's change
	// is not run again after a fence (applyHere), but a share is not that
	// request, and a repeat of it is a no-op by its mark, so a fenced share
	// gets its second try in a fresh activation now rather than from the
	// recovery pass a minute later.
	if len(participants) > 1 {
		s.driveEffect(notForwarded(context.WithoutCancel(ctx)), k, e)
	}
	return id, nil
}

// driveEffect applies the shares of e after the first, in order. A share
// that fails is left to the recovery pass, and the shares after it are
// applied all the same (no share depends on another's: one player's
// damaged record must not keep a match's other players from their
// statistics), except that the last share then only marks its account
// instead of deleting the record, which the failed share still needs. It
// reports whether e finished.
func (s *System) driveEffect(ctx context.Context, k *EffectKind, e *storage.Effect) bool {
	last := len(e.Participants) - 1
	failed := false
	for i := 1; i <= last; i++ {
		// The share that deletes the record: every other one is applied.
		final := i == last && !failed
		applied, err := s.applyShare(ctx, k, e, i, final)
		switch {
		case errors.Is(err, ErrNoAccount):
			// Deleted since the effect started: its share goes with it.
			if !final {
				continue
			}
			err = s.dropEffect(ctx, e.ID) // no last share to delete the record
		case err == nil && final && !applied:
			// The last share was applied by an earlier drive in which a
			// share before it failed (it left a mark, not the deletion),
			// or the effect finished: every share is applied now.
			err = s.dropRecorded(ctx, e.ID)
		}
		if err != nil {
			if errors.Is(err, ErrStopped) {
				return false // shutting down: the next start resumes it
			}
			s.opts.Logger.Warn("effect unfinished; the recovery pass resumes it", "kind", e.Kind, "effect", e.ID.String(),
				"share", i, "account", e.Participants[i], "err", err)
			failed = true
		}
	}
	return !failed
}

// applyShare applies share i of e in its participant's actor, and reports
// whether it applied it now (false: the account applied it before, or the
// effect finished). final is set for the share that deletes the record
// (see applyShareTx).
func (s *System) applyShare(ctx context.Context, k *EffectKind, e *storage.Effect, i int, final bool) (applied bool, err error) {
	_, err = s.Apply(ctx, e.Participants[i], ChangeFunc[struct{}](func(tx *Tx) (struct{}, error) {
		return struct{}{}, applyShareTx(tx, k, e, i, final)
	}))
	if errors.Is(err, errShareDone) {
		return false, nil
	}
	return err == nil, err
}

// applyShareTx is share i of e as a change of its account: the share, its
// bookkeeping and the dropping of the account's marks of finished effects,
// in one batch. The final share (the last, once every other one is
// applied) deletes the effect's record; every other share marks its
// account, and the first also writes the record.
func applyShareTx(tx *Tx, k *EffectKind, e *storage.Effect, i int, final bool) error {
	db := tx.DB()
	// The marks first, then the record: a mark is dropped only once its
	// record is gone, so "no mark" read before "a record" means the share
	// is still to apply. A write of this account by another activation
	// meanwhile fences this batch (cluster mode).
	marks, err := db.EffectMarks(tx.ID())
	if err != nil {
		return err
	}
	recorded, err := db.EffectExists(e.ID)
	switch {
	case err != nil:
		return err
	case slices.Contains(marks, e.ID):
		return errShareDone
	case i == 0 && recorded:
		return fmt.Errorf("actors: effect %s exists already", e.ID) // 2^-128: never, but never twice either
	case i > 0 && !recorded:
		return errShareDone // finished
	}
	if err := k.apply(tx, e, i); err != nil {
		return err
	}
	switch {
	case len(e.Participants) == 1: // a single share needs no record
	case final:
		storage.DeleteEffect(tx, e.ID) // the effect is done
	default:
		storage.MarkEffect(tx, e.ID)
		if i == 0 {
			storage.PutEffect(tx, e)
		}
	}
	return dropFinishedMarks(tx, marks)
}

// dropFinishedMarks drops the marks (read by the share, none of them its
// own effect's) of effects that finished: their record is gone. An account
// thus keeps only the marks of the effects unfinished at its latest share.
func dropFinishedMarks(tx *Tx, marks []storage.EffectID) error {
	for _, id := range marks {
		switch recorded, err := tx.DB().EffectExists(id); {
		case err != nil:
			return err
		case !recorded:
			storage.DropEffectMark(tx, id)
		}
	}
	return nil
}

// dropRecorded deletes the record of an effect whose every share is
// applied, if it is still stored (dropEffect).
func (s *System) dropRecorded(ctx context.Context, id storage.EffectID) error {
	recorded, err := s.db.EffectExists(id)
	if err != nil || !recorded {
		return err
	}
	return s.dropEffect(ctx, id)
}

// dropEffect deletes the record of an effect that no share will delete
// (its last participant no longer exists, or its last share was applied
// while another was pending), through the global writer.
func (s *System) dropEffect(ctx context.Context, id storage.EffectID) error {
	_, err := s.UpdateGlobal(ctx, func(g *GlobalTx) (any, error) {
		storage.DeleteEffectGlobal(g, id)
		return nil, nil
	})
	return err
}

// ResumeEffects is one recovery pass: it applies the remaining shares of
// the unfinished effects recorded before now minus minAge (0: all), and
// returns how many it finished and how many it left unfinished (a share
// failed again, the kind is not registered in this binary, or the record
// does not decode). A share already applied is a no-op, so a pass may run
// beside Start and beside other nodes' passes; minAge only keeps it from
// doing the work of a Start still in progress.
//
// A pass takes at most maxEffectsPerPass effects, in id order, starting
// where the previous pass stopped and going round to the first id: effects
// that cannot finish (a kind another binary registers, a share that keeps
// failing) never keep the others from their turn. It holds their ids only,
// reading each record again when it drives it.
func (s *System) ResumeEffects(ctx context.Context, minAge time.Duration) (finished, left int, err error) {
	var (
		ids    []storage.EffectID
		next   storage.EffectID // where the next pass starts: the first id not taken
		full   bool
		before = time.Now().Add(-minAge)
	)
	s.effectsMu.Lock()
	from := s.effectsFrom
	s.effectsMu.Unlock()
	errEnough := errors.New("enough")
	collect := func(end *storage.EffectID) func(*storage.Effect, error) error {
		return func(e *storage.Effect, derr error) error {
			if derr != nil {
				// Counted at every pass that reaches it, and never where
				// the next pass starts: a damaged key's id is zero.
				s.opts.Logger.Warn("effect record that does not decode; left as it is", "err", derr)
				left++
				return nil
			}
			if end != nil && bytes.Compare(e.ID[:], end[:]) >= 0 {
				return errEnough // round to where this pass started
			}
			if len(ids) == maxEffectsPerPass {
				next, full = e.ID, true
				return errEnough
			}
			if minAge <= 0 || !e.Created.After(before) {
				ids = append(ids, e.ID)
			}
			return nil
		}
	}
	err = s.db.EachEffectFrom(from, collect(nil))
	if err == nil && from != (storage.EffectID{}) {
		err = s.db.EachEffectFrom(storage.EffectID{}, collect(&from))
	}
	if err != nil && !errors.Is(err, errEnough) {
		return 0, left, fmt.Errorf("actors: resume effects: %w", err)
	}
	if !full {
		next = storage.EffectID{}
	}
	s.effectsMu.Lock()
	s.effectsFrom = next
	s.effectsMu.Unlock()

	for n, id := range ids {
		if ctx.Err() != nil || s.stopped.Load() {
			return finished, left + len(ids) - n, ctx.Err()
		}
		e, err := s.db.Effect(id)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			continue // finished since it was listed
		case err != nil:
			s.opts.Logger.Warn("effect record unreadable; left as it is", "effect", id.String(), "err", err)
			left++
			continue
		}
		if len(e.Participants) < 2 {
			// Start writes no record for a single share: this one was
			// not written by it, and no share would ever delete it.
			s.opts.Logger.Warn("effect record with fewer than two participants; deleted", "kind", storedKind(e.Kind), "effect", e.ID.String(),
				"participants", len(e.Participants))
			if err := s.dropEffect(ctx, e.ID); err != nil {
				left++
			}
			continue
		}
		k := effectKind(e.Kind)
		if k == nil {
			s.opts.Logger.Warn("effect of a kind this binary does not register; left for one that does",
				"kind", storedKind(e.Kind), "effect", e.ID.String())
			left++
			continue
		}
		if s.driveEffect(ctx, k, e) {
			finished++
		} else {
			left++
		}
	}
	return finished, left, nil
}

// storedKind is the kind of a stored record for a log line: a record this
// binary did not write (a damaged one, another program's) may name a kind
// of any length, so at most 64 bytes of it, quoted.
func storedKind(kind string) string { return fmt.Sprintf("%.64q", kind) }

// maxEffectsPerPass bounds the effects one recovery pass drives; the next
// pass goes on after them (a var for tests).
var maxEffectsPerPass = 1000

// DefaultEffectRetry is how often a server runs the recovery pass.
const DefaultEffectRetry = time.Minute

// effectLoop runs a recovery pass at start (every unfinished effect: the
// ones a crash interrupted), then every EffectRetry (the effects recorded
// at least EffectRetry ago: a share that failed, a node that died while
// applying one).
func (s *System) effectLoop() {
	defer close(s.effectsDone)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-s.done; cancel() }()
	pass := func(minAge time.Duration) {
		finished, left, err := s.ResumeEffects(ctx, minAge)
		switch {
		case err != nil && ctx.Err() == nil:
			s.opts.Logger.Warn("effects: recovery pass failed", "err", err)
		case finished > 0 || left > 0:
			s.opts.Logger.Info("effects: recovery pass", "finished", finished, "unfinished", left)
		}
	}
	pass(0)
	t := time.NewTicker(s.opts.EffectRetry)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			pass(s.opts.EffectRetry)
		}
	}
}
