package actors

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/honmaster/masterserver/storage"
)

// registry is the single writer, in its process, of the login and
// look-alike indexes, the sub-account index, the account id sequence and
// every global keyspace. A new account's record is written by the registry
// in the same batch; from then on only the account's own actor writes it.
// In cluster mode every node has a registry; their writes stay safe from
// each other through conditional writes checked by the store: logins and
// skeletons are inserted only if absent, the id sequence and the global
// sequence move by compare-and-set (see create and updateGlobal).
type registry struct {
	sys *System
	// seq is the global sequence as this registry last read or wrote it
	// (valid when seqKnown): see updateGlobal.
	seq      uint64
	seqKnown bool
}

func (r *registry) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *envelope:
		m.respond(r.serve(m.Msg))
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		ctx.Logger().Warn("registry: unexpected message", "type", typeName(m))
	}
}

// serve answers one request.
func (r *registry) serve(msg any) any {
	switch m := msg.(type) {
	case *createAccount:
		if expired(m.Deadline) {
			return &failure{Err: ErrExpired}
		}
		acct, err := r.create(m.Req)
		if err != nil {
			return &failure{Err: err}
		}
		return &created{Account: acct}
	case *createAccounts:
		if expired(m.Deadline) {
			return &failure{Err: ErrExpired}
		}
		res, err := r.createMany(m.Reqs, m.Deadlines)
		if err != nil {
			return &failure{Err: err}
		}
		return &createdMany{Results: res}
	case *ensureMeta:
		v, err := r.ensureMeta(m.Name, m.Value)
		if err != nil {
			return &failure{Err: err}
		}
		return &metaValue{Value: v}
	case *indexSkeletons:
		if err := r.indexSkeletons(m.Entries); err != nil {
			return &failure{Err: err}
		}
		return &metaValue{}
	case *setMeta:
		b := r.sys.db.NewBatch()
		b.PutMeta(m.Name, m.Value)
		if err := r.sys.db.Commit(b); err != nil {
			return &failure{Err: err}
		}
		return &metaValue{Value: m.Value}
	case *updateGlobal:
		if expired(m.Deadline) {
			return &failure{Err: ErrExpired}
		}
		reply, err := r.updateGlobal(m.Fn)
		if err != nil {
			return &failure{Err: err}
		}
		return &changed{Reply: reply}
	default:
		return &failure{Err: fmt.Errorf("%w: a request of type %s", ErrUnexpectedReply, typeName(m))}
	}
}

// ensureMeta returns the value of name, storing value first when there is
// none. The value is inserted only if absent: when another process stored
// one meanwhile, that one is read and returned, so every process uses the
// same (a generated secret).
func (r *registry) ensureMeta(name string, value []byte) ([]byte, error) {
	db := r.sys.db
	v, err := db.Meta(name)
	if !errors.Is(err, storage.ErrNotFound) {
		return v, err
	}
	b := db.NewBatch()
	b.PutMetaNew(name, value)
	err = db.Commit(b)
	if errors.Is(err, storage.ErrConflict) {
		return db.Meta(name)
	}
	if err != nil {
		return nil, err
	}
	return value, nil
}

// createTries bounds the attempts of one creation whose id was taken by
// another process's registry meanwhile (cluster mode: one registry per
// node, one id sequence in the store). Each lost attempt means another
// registry committed, so the nodes together always progress; the bound is
// only against a store that keeps answering "conflict" for another
// reason. With two registries creating as fast as they can, each attempt
// loses about half the time: 8 attempts refused about one creation in 256
// (TestRegistriesCreateConcurrently on PostgreSQL failed about one run in
// six); lostSequence's pause makes the registries stop taking turns in
// step, and 64 attempts make a refusal out of reach.
const createTries = 64

// lostSequence pauses the registry after its try-th lost id sequence: a
// random pause, up to 250 µs per lost try (at most 5 ms), so that two
// registries that keep reading the same sequence stop doing it in step.
// Only the registry waits (creations are its only work); no account's
// actor does.
func lostSequence(try int) {
	limit := min(time.Duration(try)*250*time.Microsecond, 5*time.Millisecond)
	time.Sleep(rand.N(limit) + 1)
}

// create writes a new account. The id comes from the stored sequence,
// moved by compare-and-set in the creating batch, and the login and its
// skeleton are inserted only if absent, in the same batch: two processes
// creating accounts on one database at once never share an id, a login or
// a look-alike login. A creation that lost the id to another process
// reads the sequence again and retries.
func (r *registry) create(req *NewAccount) (*storage.Account, error) {
	for try := 1; ; try++ {
		acct, err := r.createOnce(req)
		var ce *storage.ConflictError
		if !errors.As(err, &ce) {
			return acct, err
		}
		if again, err := createConflict(req, ce, err, try); !again {
			return nil, err
		}
	}
}

// createConflict words the conflict ce of req's try-th creation (err) for
// the caller, or tells it to try again (another creation took the id:
// after a pause, up to createTries).
func createConflict(req *NewAccount, ce *storage.ConflictError, err error, try int) (again bool, _ error) {
	switch ce.On {
	case storage.ConflictLogin:
		return false, fmt.Errorf("%w: %q", ErrLoginTaken, req.Login)
	case storage.ConflictLoginSkeleton:
		return false, fmt.Errorf("%w: %q", ErrLoginLookalike, req.Login)
	case storage.ConflictNextAccountID:
		if try < createTries {
			lostSequence(try)
			return true, nil
		}
	}
	return false, err
}

func (r *registry) createOnce(req *NewAccount) (*storage.Account, error) {
	if req.ParentLogin != "" {
		return nil, fmt.Errorf("%w: %q: a sub-account is created by its parent's actor (CreateAccount)", ErrBadParent, req.ParentLogin)
	}
	db := r.sys.db
	b := db.NewBatch()
	acct, err := putCreation(db, b, req, 0)
	if err != nil {
		b.Discard()
		return nil, err
	}
	if err := db.Commit(b); err != nil {
		return nil, err
	}
	return acct, nil
}

// putCreation puts the creation of req's account into b: a new id from
// the stored sequence (moved by compare-and-set in b), the account's
// records (putNewAccount) and, for a sub-account (super not 0), its entry
// in its main account's index. A ConflictError of the commit means
// another process took the id (ConflictNextAccountID: try again), the
// login or its look-alike.
func putCreation(db *storage.DB, b *storage.Batch, req *NewAccount, super storage.AccountID) (*storage.Account, error) {
	if _, err := db.LoginID(req.Login); err == nil {
		return nil, fmt.Errorf("%w: %q", ErrLoginTaken, req.Login)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	id, err := db.NextAccountID()
	if err != nil {
		return nil, err
	}
	// Ids are uint32: once the sequence wraps, a new account would take the
	// id (and records) of an old one. Refuse, and refuse any id whose
	// record exists whatever the reason.
	if id == 0 {
		return nil, fmt.Errorf("%w: the id sequence wrapped", ErrIDSpace)
	}
	if exists, err := db.AccountExists(id); err != nil {
		return nil, err
	} else if exists {
		// Another process may have created it since the sequence was read:
		// then the sequence moved, and the creation retries.
		if next, err := db.NextAccountID(); err == nil && next != id {
			return nil, &storage.ConflictError{On: storage.ConflictNextAccountID}
		}
		return nil, fmt.Errorf("%w: account %d exists", ErrIDSpace, id)
	}
	stale, err := staleSkeleton(db, req)
	if err != nil {
		return nil, err
	}
	acct := req.Account.Clone()
	acct.ID, acct.SuperID, acct.Login = id, id, req.Login
	if super != 0 {
		acct.SuperID = super
		b.PutSubAccount(super, id)
	}
	putNewAccount(b, acct, req, stale)
	b.SetNextAccountIDIf(id, id+1)
	return acct, nil
}

// putNewAccount writes every record of the new account acct (its id,
// SuperID and login assigned) as req describes it: profile and lists (and
// with them the nickname index entry), owned upgrades, the login and its
// look-alike skeleton (insert-if-absent, or in place of the entry of
// stale, a deleted account that still holds it: staleSkeleton) and the
// registration address. The records are those the account's actor would
// write for the same state (storage.Batch.PutAccount with no previous
// state), so that its first activation loads exactly this account.
func putNewAccount(b *storage.Batch, acct *storage.Account, req *NewAccount, stale storage.AccountID) {
	id := acct.ID
	b.PutAccount(acct, nil)
	b.PutUpgrades(id, 0, acct.Upgrades)
	b.PutLoginNew(acct.Login, id)
	switch {
	case req.LoginSkeleton == "":
	case stale != 0:
		b.PutLoginSkeletonInPlaceOf(req.LoginSkeleton, stale, id)
	default:
		b.PutLoginSkeletonNew(req.LoginSkeleton, id)
	}
	b.PutRegistrationAddress(id, req.Address)
}

// staleSkeleton is the deleted account whose entry still holds req's
// login skeleton (storage.DB.StaleLoginSkeleton), or 0: the new account
// takes such an entry over rather than being refused as a look-alike of
// a login that no longer exists.
func staleSkeleton(db *storage.DB, req *NewAccount) (storage.AccountID, error) {
	if req.LoginSkeleton == "" {
		return 0, nil
	}
	return db.StaleLoginSkeleton(req.LoginSkeleton)
}

// GlobalTx is the write access of one global update: it implements
// storage.GlobalWriter, so a global keyspace is written with
// ks.Put(g, key, value). Everything written commits as one synced batch.
type GlobalTx struct {
	w  *storage.GlobalWrites
	db *storage.DB
}

// GlobalWrites implements storage.GlobalWriter.
func (g *GlobalTx) GlobalWrites() *storage.GlobalWrites { return g.w }

// DB gives read access to storage (as of before this update).
func (g *GlobalTx) DB() *storage.DB { return g.db }

var _ storage.GlobalWriter = (*GlobalTx)(nil)

// globalTries bounds the runs of one global update whose commit found
// that another process's registry committed a global write meanwhile.
const globalTries = 5

// updateGlobal runs fn and commits its writes, sealed by the global
// sequence (storage.GlobalWrites.Seal): the commit succeeds only if no
// global write committed since the sequence was read, which was before fn
// read anything. Otherwise nothing was written, and fn runs again, on a
// fresh GlobalTx, after the sequence is read again, up to globalTries
// times. So fn must be safe to run more than once: no effect outside its
// GlobalTx, and its captured inputs left as it found them. The callers
// (host/guides's Import, Seed and Moderate, host/plinko's PutCatalog) are:
// each reads through g.DB() and writes through g, and edits only copies.
//
// The sequence read last is kept (r.seq), so that a process that is the
// only global writer reads it once; it is read again after a conflict or a
// commit whose outcome is unknown.
func (r *registry) updateGlobal(fn func(*GlobalTx) (any, error)) (any, error) {
	for try := 1; ; try++ {
		if !r.seqKnown {
			seq, err := r.sys.db.GlobalSequence()
			if err != nil {
				return nil, err
			}
			r.seq, r.seqKnown = seq, true
		}
		reply, err := r.updateGlobalOnce(fn, r.seq)
		var ce *storage.ConflictError
		if errors.As(err, &ce) && ce.On == storage.ConflictGlobalSequence {
			r.seqKnown = false
			if try < globalTries {
				continue
			}
		}
		return reply, err
	}
}

// updateGlobalOnce runs fn once and commits its writes, sealed by seq.
func (r *registry) updateGlobalOnce(fn func(*GlobalTx) (any, error), seq uint64) (reply any, err error) {
	b := r.sys.db.NewBatch()
	g := &GlobalTx{w: b.ForGlobal(), db: r.sys.db}
	defer func() {
		if p := recover(); p != nil {
			b.Discard()
			reply, err = nil, fmt.Errorf("%w: %v", ErrPanic, p)
		}
	}()
	reply, err = fn(g)
	if err != nil {
		b.Discard()
		return nil, err
	}
	touched := g.w.Touched()
	if len(touched) == 0 { // nothing written: nothing to seal (an empty batch commits nothing)
		b.Discard()
		return reply, nil
	}
	next := g.w.Seal(seq)
	err = r.sys.db.Commit(b)
	switch {
	case err == nil:
		r.seq = next
	case errors.Is(err, storage.ErrCommitUncertain):
		r.seqKnown = false
	default:
		return nil, err // nothing written
	}
	// Bumped after an uncertain commit too: the keyspaces may have changed,
	// so what was cached from them is read again.
	for _, name := range touched {
		r.sys.version(name).Add(1)
	}
	if err != nil {
		return nil, err
	}
	return reply, nil
}

// indexSkeletons asks the registry to give the logins of Entries their
// look-alike skeleton entries where no login holds them.
type indexSkeletons struct{ Entries []SkeletonEntry }

// SkeletonEntry is one login's look-alike skeleton, for
// IndexLoginSkeletons.
type SkeletonEntry struct {
	Skeleton string
	ID       storage.AccountID
}

// skeletonTries bounds the attempts of one chunk of the look-alike index
// build that met a concurrent creation or build (another process).
const skeletonTries = 8

// indexSkeletons writes the entries whose skeleton no login holds yet,
// each insert-if-absent, in one batch; a batch that met an existing entry
// (a build run again, a concurrent creation or build) is read again and
// retried.
func (r *registry) indexSkeletons(es []SkeletonEntry) error {
	db := r.sys.db
	for try := 1; ; try++ {
		b := db.NewBatch()
		seen := map[string]bool{}
		for _, e := range es {
			if seen[e.Skeleton] {
				continue // two existing logins that look alike: the first keeps the entry
			}
			seen[e.Skeleton] = true
			// The first try writes blind (a first build finds no entry); a
			// retry reads which entries exist now.
			if try > 1 {
				if _, err := db.LoginSkeletonID(e.Skeleton); err == nil {
					continue
				} else if !errors.Is(err, storage.ErrNotFound) {
					b.Discard()
					return err
				}
				if stale, err := db.StaleLoginSkeleton(e.Skeleton); err != nil {
					b.Discard()
					return err
				} else if stale != 0 {
					b.PutLoginSkeletonInPlaceOf(e.Skeleton, stale, e.ID)
					continue
				}
			}
			b.PutLoginSkeletonNew(e.Skeleton, e.ID)
		}
		err := db.Commit(b)
		if errors.Is(err, storage.ErrConflict) && try < skeletonTries {
			continue
		}
		return err
	}
}

// skeletonChunk is how many logins one registry request of
// IndexLoginSkeletons carries.
const skeletonChunk = 1024

// IndexLoginSkeletons builds the store's look-alike index (see
// storage.Batch.PutLoginSkeletonNew) for the accounts created before it
// existed, once per version of the skeleton rules: unless the metadata
// value marker already holds version, it gives every stored login whose
// skeleton no login holds yet its entry (through the registry, a chunk
// at a time, so that creations are served in between) and then records
// version under marker. Where existing logins share a skeleton, the first
// found keeps the entry and every account stays. Entries of older rules
// stay too (they only refuse more). It returns the number of logins
// read (0 when the index was built already). Several processes may run it
// at once: entries are inserted only where absent.
func (s *System) IndexLoginSkeletons(ctx context.Context, marker, version string, skeleton func(login string) string) (int, error) {
	if v, err := s.db.Meta(marker); err == nil && string(v) == version {
		return 0, nil
	} else if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return 0, err
	}
	n := 0
	var chunk []SkeletonEntry
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		_, err := askFor[*metaValue](ctx, s, s.registry, &envelope{Msg: &indexSkeletons{Entries: chunk}})
		chunk = nil
		return err
	}
	err := s.db.EachLogin(func(login string, id storage.AccountID) error {
		n++
		sk := skeleton(login)
		if sk == "" {
			return nil
		}
		chunk = append(chunk, SkeletonEntry{Skeleton: sk, ID: id})
		if len(chunk) < skeletonChunk {
			return nil
		}
		return flush()
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return n, err
	}
	_, err = askFor[*metaValue](ctx, s, s.registry, &envelope{Msg: &setMeta{Name: marker, Value: []byte(version)}})
	return n, err
}

// setMeta asks the registry to store a metadata value.
type setMeta struct {
	Name  string
	Value []byte
}
