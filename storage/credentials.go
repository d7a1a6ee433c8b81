package storage

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/honmaster/masterserver/storage/internal/pb"
)

// An account's SRP salt and verifier (~540 bytes with salt2) are read at
// each pre_auth and console sign-in, and written at the account's creation
// and at each password change, never otherwise. Since schema version 5
// they are a record of their own, v/<id> (pb.Credentials), written by
// PutAccount only when they change: a profile write (a drop, a purchase)
// neither reads nor copies them. (Up to version 4 the profile record held
// them, and a profile write of a live account on Pebble read the stored
// ones to copy them; migrateCredentials moves them out.)
//
// A live account's state goes without them on Pebble (DropCredentials):
// with 100,000 players online that is ~80 MiB of heap not held, for one
// local read of a small record per pre_auth (Credentials). On PostgreSQL
// that read would be a round trip per login, so there the state keeps
// them (CredentialsOnDemand); both engines store them in the same record.

// The credentials' field numbers: pb.Credentials numbers them as
// pb.Profile did up to schema version 4 (TestCredentialFieldsMatch), so
// that the migration moves a profile's encoded fields as they are.
var credentialFields = func() [3]protowire.Number {
	fs := (&pb.Credentials{}).ProtoReflect().Descriptor().Fields()
	return [3]protowire.Number{fs.ByName("srp_salt").Number(), fs.ByName("srp_salt2").Number(), fs.ByName("srp_verifier").Number()}
}()

func isCredentialField(n protowire.Number) bool {
	return n == credentialFields[0] || n == credentialFields[1] || n == credentialFields[2]
}

func (v SRPVerifier) empty() bool { return len(v.Salt) == 0 && v.Salt2 == "" && len(v.Verifier) == 0 }

func (v SRPVerifier) equal(w SRPVerifier) bool {
	return string(v.Salt) == string(w.Salt) && v.Salt2 == w.Salt2 && string(v.Verifier) == string(w.Verifier)
}

// CredentialsOnDemand reports whether live accounts' states go without
// their credentials (DropCredentials): on Pebble, where reading them when
// needed (Credentials) is a local read. On PostgreSQL it would be a round
// trip, so the state keeps them. Either way a profile write leaves the
// credentials record alone.
func (db *DB) CredentialsOnDemand() bool {
	_, ok := db.eng.(*pebbleEngine)
	return ok
}

// DropCredentials empties a's SRP, which stays stored: PutAccount writes
// the credentials record only when a change set new ones. Call it only on
// an account loaded from storage, and only when the database says so
// (CredentialsOnDemand).
func (a *Account) DropCredentials() {
	if !a.noCreds || len(a.SRP.Salt) > 0 { // loaded, or set by a change
		a.credFP = uint32(SaltFingerprint(a.SRP.Salt))
	}
	a.SRP = SRPVerifier{}
	a.noCreds = true
}

// CredentialsMatch reports whether fp (a SaltFingerprint kept with a
// session, Session.ProofSalt) is of a's SRP salt, also when its state went
// without its credentials (DropCredentials keeps the low 32 bits of its
// fingerprint: a salt drawn anew matches the old one's by chance once in
// four billion): a session's chain is checked without reading the
// credentials record.
func (a *Account) CredentialsMatch(fp uint64) bool {
	if a.noCreds && len(a.SRP.Salt) == 0 {
		return a.credFP == uint32(fp)
	}
	return SaltFingerprint(a.SRP.Salt) == fp
}

// Credentials reads the SRP salt and verifier of account id from its
// credentials record. ErrNotFound when there is no such account; an
// account without credentials (none was ever set) gets empty ones.
func (db *DB) Credentials(id AccountID) (SRPVerifier, error) {
	v, found, err := readCredentials(db.eng, id)
	if err != nil || found {
		return v, err
	}
	switch ok, err := db.AccountExists(id); {
	case err != nil:
		return v, fmt.Errorf("storage: account %d: %w", id, err)
	case !ok:
		return v, fmt.Errorf("storage: account %d: %w", id, ErrNotFound)
	}
	return v, nil
}

// readCredentials reads account id's credentials record (found false:
// none, and v empty).
func readCredentials(r reader, id AccountID) (v SRPVerifier, found bool, err error) {
	raw, err := get(r, credsKey(id))
	switch {
	case errors.Is(err, ErrNotFound):
		return v, false, nil
	case err != nil:
		return v, false, fmt.Errorf("storage: account %d credentials: %w", id, err)
	}
	if v, err = decodeCredentials(raw); err != nil {
		return v, false, fmt.Errorf("storage: account %d credentials: %w", id, err)
	}
	return v, true, nil
}

// decodeCredentials decodes a credentials record; the salt and verifier
// it returns share raw's storage.
func decodeCredentials(raw []byte) (SRPVerifier, error) {
	var v SRPVerifier
	if len(raw) == 0 || raw[0] != formatV2 {
		return v, fmt.Errorf("%w: unknown value format", ErrCorrupt)
	}
	for b := raw[1:]; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return SRPVerifier{}, fmt.Errorf("%w: %v", ErrCorrupt, protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return SRPVerifier{}, fmt.Errorf("%w: %v", ErrCorrupt, protowire.ParseError(m))
		}
		if isCredentialField(num) {
			if typ != protowire.BytesType {
				return SRPVerifier{}, fmt.Errorf("%w: credential field %d of wire type %d", ErrCorrupt, num, typ)
			}
			val, _ := protowire.ConsumeBytes(b[n : n+m])
			switch num {
			case credentialFields[0]:
				v.Salt = val
			case credentialFields[1]:
				v.Salt2 = string(val)
			case credentialFields[2]:
				v.Verifier = val
			}
		}
		b = b[n+m:]
	}
	return v, nil
}

// putCredentials writes account id's credentials record, or deletes it
// when v is empty (an account without credentials has none).
func (b *Batch) putCredentials(id AccountID, v SRPVerifier) {
	if v.empty() {
		b.del(credsKey(id))
		return
	}
	b.setPB(credsKey(id), &pb.Credentials{SrpSalt: v.Salt, SrpSalt2: v.Salt2, SrpVerifier: v.Verifier})
}

// FillCredentials reads a's credentials from storage if its state went
// without them (DropCredentials), so that a copy of an account handed out
// of its actor (actors.System.Account) is whole.
func (db *DB) FillCredentials(a *Account) error {
	if !a.noCreds {
		return nil
	}
	v, err := db.Credentials(a.ID)
	if err != nil {
		return err
	}
	a.SRP, a.noCreds = v, false
	return nil
}

// migrateCredentials moves every account's credentials out of its profile
// record into a record of their own (schema version 4 to 5), in chunks
// that each commit on their own: an account's profile, rewritten without
// the credential fields (every other field kept as encoded), and its
// credentials record, holding those fields as they were encoded, are
// written in one batch. A crash part way leaves the old version recorded
// and some accounts moved; the next open moves the rest (a profile
// without credential fields is left as it is, and so is its record). It
// does not record the version; the caller does.
func migrateCredentials(db *DB) (int, error) {
	n := 0
	c := newChunked(db)
	err := db.scan([]byte(prefixAccount), func(k, v []byte) error {
		id, err := decodeID(k[len(prefixAccount):])
		if err != nil {
			return err
		}
		if len(v) == 0 || v[0] != formatV2 {
			return fmt.Errorf("account %d: %w: unknown value format", id, ErrCorrupt)
		}
		profile, creds := []byte{formatV2}, []byte{formatV2}
		for b := v[1:]; len(b) > 0; {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				return fmt.Errorf("account %d: %w: %v", id, ErrCorrupt, protowire.ParseError(n))
			}
			m := protowire.ConsumeFieldValue(num, typ, b[n:])
			if m < 0 {
				return fmt.Errorf("account %d: %w: %v", id, ErrCorrupt, protowire.ParseError(m))
			}
			if isCredentialField(num) {
				creds = append(creds, b[:n+m]...)
			} else {
				profile = append(profile, b[:n+m]...)
			}
			b = b[n+m:]
		}
		if len(creds) == 1 {
			return nil // moved already, or never had any
		}
		if _, err := decodeCredentials(creds); err != nil {
			return fmt.Errorf("account %d credentials: %w", id, err)
		}
		c.b.set(accountKey(id), profile, nil)
		c.b.set(credsKey(id), creds, nil)
		n++
		return c.flush()
	})
	return n, c.finish(err)
}
