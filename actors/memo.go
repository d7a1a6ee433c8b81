package actors

// Memo returns what an area remembered under key in this account's actor
// with SetMemo (nil when nothing): derived facts it would otherwise read
// from storage on every change, such as a sum over its records. It lives
// in memory only, as long as the actor: it is forgotten when the account is
// reloaded and when a commit fails, so the area must be able to rebuild it
// from storage. The value must not be edited once remembered (replace it).
func (t *Tx) Memo(key string) any {
	for i := len(t.memoSet) - 1; i >= 0; i-- {
		if t.memoSet[i].key == key {
			return t.memoSet[i].v
		}
	}
	if t.memos != nil {
		for _, m := range *t.memos {
			if m.key == key {
				return m.v
			}
		}
	}
	return nil
}

// SetMemo remembers v under key once this change commits (see Memo).
func (t *Tx) SetMemo(key string, v any) { t.memoSet = append(t.memoSet, memo{key, v}) }

type memo struct {
	key string
	v   any
}

// adoptMemos keeps what a committed change remembered.
func adoptMemos(ms *[]memo, set []memo) {
next:
	for _, s := range set {
		for i := range *ms {
			if (*ms)[i].key == s.key {
				(*ms)[i].v = s.v
				continue next
			}
		}
		*ms = append(*ms, s)
	}
}
