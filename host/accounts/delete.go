package accounts

import (
	"context"
	"fmt"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// Removed tells what Delete removed.
type Removed struct {
	// Accounts are the deleted accounts: the sub-accounts first, then the
	// account named.
	Accounts []actors.Deleted
	// Records is the number of records deleted, over all of them.
	Records int
}

// Delete deletes the account with the given login (matched exactly) and
// its sub-accounts, each in one synced commit of its own actor
// (actors.System.DeleteAccount): profile, lists, upgrades, login, sessions,
// cloud archives, every area's per-account records (guide marks and votes,
// reports it filed and their index entries, its moderation state, SysInfo,
// console role) and its plugin state. What other parts derive from them
// follows: its votes leave the guides' counts, its cached credentials and
// sessions are forgotten, its login may be registered again (a new account
// gets a new id; ids are never reused).
//
// Records other accounts wrote stay theirs: a report filed against the
// deleted account stays in its reporter's records and in the moderation
// queue (it names an account id that no longer exists; it can only be
// dismissed, which its reporter's actor records: see reports.Resolve), and
// a resolution of a report the deleted account filed stays in the
// reportee's moderation history.
//
// A sub-account named alone is deleted alone. When deleting a main account
// fails part way (a sub-account's deletion failed), the ones deleted stay
// deleted and Delete may simply be called again.
func (s *Service) Delete(ctx context.Context, login string) (*Removed, error) {
	db := s.Sys.DB()
	id, err := db.LoginID(login)
	if err != nil {
		return nil, err
	}
	subs, err := db.SubAccounts(id)
	if err != nil {
		return nil, err
	}
	out := &Removed{}
	if err := s.deleteAll(ctx, out, append(subs, id)); err != nil {
		return out, err
	}
	// A sub-account created while the main account was being deleted (the
	// registry checked the parent just before its deletion committed)
	// would be left without one: delete any that appeared.
	late, err := db.SubAccounts(id)
	if err != nil {
		return out, err
	}
	return out, s.deleteAll(ctx, out, late)
}

func (s *Service) deleteAll(ctx context.Context, out *Removed, ids []storage.AccountID) error {
	for _, id := range ids {
		d, err := s.Sys.DeleteAccount(ctx, id)
		if err != nil {
			return fmt.Errorf("delete account %d: %w", id, err)
		}
		out.Accounts = append(out.Accounts, *d)
		out.Records += d.Records
	}
	return nil
}
