package actors

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/honmaster/masterserver/storage"
)

// account is the single writer of one account's state.
type account struct {
	sys *System
	id  storage.AccountID
	// fenced is set when the database refused a write of this activation
	// because another one took the account: the actor stops after
	// answering. (Beside id, so that the struct has no padding: every live
	// account has one, TestAccountActorSize.)
	fenced bool
	state  *storage.Account // nil when the account does not exist or failed to load
	// all is the owned list with its spare capacity (state.Upgrades is the
	// same list clipped, so that a published state can never be appended
	// to), index its index.
	all   []storage.Upgrade
	index *storage.OwnedIndex
	err   error // why state is nil
	// areas caches the plugin states read or committed (see
	// Tx.PluginState) and the areas' derived facts (see Tx.Memo); nil until
	// the first.
	areas *areaState
	// epoch is the owner epoch this activation took in cluster mode (0 on a
	// single node): every batch it commits is fenced by it.
	epoch uint64
	// slot is the shard's entry of this activation, where the state is
	// published (see publish), set when the actor starts.
	slot *child
}

func (a *account) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *envelope:
		a.sys.observeMailbox(m)
		m.respond(a.serve(m.Msg))
		if a.fenced {
			a.fenced = false
			a.sys.shardOf(a.id).release(a.id)
		}
	case *actor.Started:
		a.id = accountOfPID(ctx.Self())
		a.slot = a.sys.shardOf(a.id).slot(a.id, ctx.Self())
		a.load()
	case *actor.Stopping:
		a.slot.state.Store(nil) // passivated: its memory goes
	case *actor.Stopped:
		// Sent by the actor itself instead of a watch (which would cost the
		// actor a watcher set): protoactor has already removed it from its
		// registry, so the shard may spawn a successor under the same name.
		a.sys.shardOf(a.id).stopped(a.id, ctx.Self())
	case *actor.Restarting:
	default:
		ctx.Logger().Warn("account: unexpected message", "account", a.id, "type", typeName(m))
	}
}

// serve answers one request.
func (a *account) serve(msg any) any {
	switch m := msg.(type) {
	case *getAccount:
		a.reloadIfFailed()
		if a.state == nil {
			return &failure{Err: a.err}
		}
		c := a.state.Clone()
		if err := a.sys.db.FillCredentials(c); err != nil { // a copy is whole
			return &failure{Err: err}
		}
		return &snapshot{Account: c}
	case *readAccount:
		a.reloadIfFailed()
		if a.state == nil {
			return &failure{Err: a.err}
		}
		return a.read(m.Fn)
	case *applyChange:
		if expired(m.Deadline) || closed(m.Cancel) {
			return &failure{Err: ErrExpired}
		}
		a.reloadIfFailed()
		if a.state == nil {
			return &failure{Err: a.err}
		}
		reply, err := a.apply(m.Change)
		if err != nil {
			return &failure{Err: err}
		}
		return &changed{Reply: reply}
	default:
		return &failure{Err: fmt.Errorf("%w: a request of type %s", ErrUnexpectedReply, typeName(m))}
	}
}

func (a *account) load() {
	a.areas = nil
	var acct *storage.Account
	var err error
	if p := a.sys.opts.Placement; p != nil {
		a.slot.act.Store(0)
		a.epoch, acct, err = a.sys.db.ActivateAccount(a.id, p.Node())
		if err == nil {
			// Numbered once its epoch is stored: from then on no other
			// activation's write lands (see System.clusterSession).
			a.slot.act.Store(a.sys.activations.Add(1))
		}
	} else {
		acct, err = a.sys.db.LoadAccount(a.id)
	}
	switch {
	case errors.Is(err, storage.ErrNotFound):
		a.state, a.err = nil, ErrNoAccount
	case err != nil:
		a.state, a.err = nil, err
	default:
		if a.sys.db.CredentialsOnDemand() {
			acct.DropCredentials() // read when needed (DB.Credentials): ~540 bytes per live account
		}
		a.all, a.index = acct.Upgrades, storage.NewOwnedIndex(acct.Upgrades)
		acct.Upgrades = a.all[:len(a.all):len(a.all)]
		a.state, a.err = acct, nil
		a.publish()
	}
}

// reloadIfFailed retries a failed load on every request: a transient read
// error, or an account created after its actor was spawned, is seen at once
// rather than after the actor is passivated.
func (a *account) reloadIfFailed() {
	if a.state == nil {
		a.load()
	}
}

// read runs a read function, turning a panic into a failure reply (a
// restarted actor would leave the asker waiting for its timeout).
func (a *account) read(fn func(*storage.Account) any) any {
	reply, err := readRecovered(fn, a.state.WithIndex(a.index))
	if err != nil {
		return &failure{Err: err}
	}
	return &changed{Reply: reply}
}

// readRecovered runs a read function, turning its panic into ErrPanic.
func readRecovered(fn func(*storage.Account) any, acct *storage.Account) (reply any, err error) {
	defer func() {
		if r := recover(); r != nil {
			reply, err = nil, fmt.Errorf("%w: %v", ErrPanic, r)
		}
	}()
	return fn(acct), nil
}

// apply runs c on a working copy, commits what it wrote as one synced batch
// and only then adopts the copy: the in-memory state never runs ahead of
// storage. Only altered records are written (see Change).
func (a *account) apply(c Change) (reply any, err error) {
	work := a.state.WorkingCopy(a.all, a.index)
	owned := len(work.Upgrades)
	tx := &Tx{id: a.id, index: a.index, acct: work, owned: owned, batch: a.sys.db.NewBatch(), db: a.sys.db, areas: &a.areas}
	committed, afterRan := false, false
	defer func() {
		if r := recover(); r != nil {
			if committed {
				// The batch is stored (and back in the engine's pool: no
				// Discard), so the reply stands; what the actor holds may
				// be half adopted, so it reloads from storage.
				a.sys.opts.Logger.Error("an account's change panicked after its commit; the account is reloaded", "account", a.id, "panic", r)
				a.areas = nil
				a.forgetUncertain(tx)
				return
			}
			tx.batch.Discard()
			reply, err = nil, fmt.Errorf("%w: %v", ErrPanic, r)
		}
	}()
	reply, err = c.Apply(tx)
	if err != nil {
		tx.batch.Discard()
		return nil, err
	}
	// Only a change that asked to edit the record writes and adopts it: the
	// state in memory and the record on disk never disagree.
	var gained []storage.Upgrade
	if tx.dirty {
		w := tx.acct
		w.ID, w.SuperID, w.Login = a.state.ID, a.state.SuperID, a.state.Login
		if len(w.Upgrades) < owned {
			tx.batch.Discard()
			return nil, fmt.Errorf("%w: owned upgrades removed", ErrBadEdit)
		}
		gained = w.Upgrades[owned:]
		if err := gainedOnce(a.index, gained); err != nil {
			tx.batch.Discard()
			return nil, err
		}
		tx.batch.PutAccount(w, a.state) // only the records that differ from the stored ones
		tx.batch.PutUpgrades(a.id, owned, gained)
	}
	if tx.sessList != nil && tx.sessList.dirty {
		tx.batch.PutAccountSessions(a.id, tx.sessList.list)
	}
	if a.epoch != 0 {
		tx.batch.Fence(a.id, a.epoch)
	}
	if err := commitRecovered(a.sys.db, tx.batch); err != nil {
		a.areas = nil
		switch {
		case errors.Is(err, storage.ErrCommitUncertain):
			a.forgetUncertain(tx)
			if tx.del != nil {
				a.deletedIfGone(tx.del)
			}
			a.afterCommit(tx, false)
		case errors.Is(err, storage.ErrFenced):
			// Another activation took the account: this one's state may be
			// stale. It stops after answering (see Receive); the next
			// request starts a fresh activation.
			a.forgetUncertain(tx)
			a.fenced = true
		}
		return nil, err
	}
	committed = true
	defer func() {
		if !afterRan {
			// A panic between the commit and its after-functions (the
			// recover above keeps the reply): what the areas derive from
			// the stored write still follows it.
			a.afterCommit(tx, true)
		}
	}()
	if len(tx.plugSet) > 0 || len(tx.memoSet) > 0 {
		ar := known(&a.areas)
		ar.plug.adopt(tx.plugSet)
		ar.memos.adopt(tx.memoSet)
	}
	if !tx.dirty {
		// The copy may leave the actor as the reply (a read-only change may
		// return it): detach it from the live index, which the actor goes
		// on changing. Its upgrades (shared, clipped) are never edited.
		tx.acct.Detach()
	}
	if tx.dirty {
		w := tx.acct
		// The working copy shares the actor's list: extend it (the gained
		// upgrades are usually in place past its end already), amortised
		// O(gained), and its index.
		a.all = append(a.all[:owned], gained...)
		a.index.Add(gained...)
		w.Upgrades = a.all[:len(a.all):len(a.all)]
		w.Detach()
		if a.sys.db.CredentialsOnDemand() {
			w.DropCredentials() // a change that set new ones has stored them (their own record)
		}
		a.state = w
		a.publish()
	}
	for _, sw := range tx.sessions {
		if sw.put {
			a.sys.cacheSession(sw.key, sw.s, a.slot.act.Load())
		} else {
			a.sys.uncacheSession(sw.key)
		}
	}
	if tx.del != nil {
		a.deleted(tx.del) // delete.go
	}
	afterRan = true
	a.afterCommit(tx, true)
	return reply, nil
}

// commitRecovered commits b; a panic inside the commit (a commit observer,
// after the engine stored the batch) is an outcome unknown, never a plain
// failure: the batch may be stored, and the actor must reload rather than
// go on from the state before it.
func commitRecovered(db *storage.DB, b *storage.Batch) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: the commit panicked: %v", storage.ErrCommitUncertain, r)
		}
	}()
	return db.Commit(b)
}

// afterCommit runs the change's AfterCommit functions; a panic in one is
// logged and the others still run: the batch is committed (or may be), so
// the change's reply must not turn into a failure.
func (a *account) afterCommit(tx *Tx, stored bool) {
	for _, f := range tx.after {
		a.runAfter(func() { f(stored) })
	}
}

// runAfter runs f, a function that runs after a commit, logging its panic:
// the commit stands, and the functions after it still run.
func (a *account) runAfter(f func()) {
	defer func() {
		if r := recover(); r != nil {
			a.sys.opts.Logger.Error("a function run after an account's commit panicked", "account", a.id, "panic", r)
		}
	}()
	f()
}

// forgetUncertain drops what the actor holds in memory after a commit whose
// outcome is unknown (a storage engine failure, a connection to PostgreSQL
// lost during COMMIT): the batch may or may not be stored, so neither the
// state before it nor the working copy can be trusted. The next request
// reloads the account from storage (reloadIfFailed), and the sessions the
// batch wrote or deleted are read from storage again. Without this the next
// change would write only the records that differ from the stale state,
// partly undoing a change that did commit.
func (a *account) forgetUncertain(tx *Tx) {
	a.state, a.err = nil, fmt.Errorf("account %d: reloading after a write of unknown outcome", a.id)
	a.slot.state.Store(nil)
	for _, sw := range tx.sessions {
		a.sys.uncacheSession(sw.key)
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

// expired reports whether a request's deadline has passed: such a request is
// answered ErrExpired and changes nothing, so that its asker, which stops
// waiting soon after, never reports a failure for a write that happens.
func expired(deadline time.Time) bool {
	return !deadline.IsZero() && time.Now().After(deadline)
}

// closed reports whether c is closed (a nil c never is).
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// publish makes the current state readable without a message to the actor
// (System.Snapshot). The state is never modified once adopted (changes edit
// a deep working copy, the owned list is clipped and carries no index), so
// it is shared as it is, at no memory cost.
func (a *account) publish() { a.slot.state.Store(a.state) }

// gainedOnce refuses upgrades gained twice, or gained while owned: storage
// keeps an account's upgrades by id, so the actor would hold a copy more
// than the record (and serve it until it reloads). Today's changes check
// Owns first; this keeps a change that does not from splitting the two.
func gainedOnce(owned *storage.OwnedIndex, gained []storage.Upgrade) error {
	var seen map[string]bool
	for _, u := range gained {
		if owned.Has(u.ID) || seen[u.ID] {
			return fmt.Errorf("%w: upgrade %q gained twice", ErrBadEdit, u.ID)
		}
		if len(gained) > 1 {
			if seen == nil {
				seen = make(map[string]bool, len(gained))
			}
			seen[u.ID] = true
		}
	}
	return nil
}
