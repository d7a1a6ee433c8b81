package actors

// Memo returns what an area remembered under key in this account's actor
// with SetMemo (nil when nothing): derived facts it would otherwise read
// from storage on every change, such as a sum over its records. It lives
// in memory only, as long as the actor: it is forgotten when the account is
// reloaded and when a commit fails, so the area must be able to rebuild it
// from storage. The value must not be edited once remembered (replace it).
func (t *Tx) Memo(key string) any {
	if v, ok := t.memoSet.get(key); ok {
		return v
	}
	if ar := *t.areas; ar != nil {
		v, _ := ar.memos.get(key)
		return v
	}
	return nil
}

// SetMemo remembers v under key once this change commits (see Memo).
func (t *Tx) SetMemo(key string, v any) { t.memoSet.set(key, v) }
