package storage

// CloudSizes returns the stored size in bytes (archive and metadata) of each
// bucket of an account, for per-account quotas. It reads the keys and value
// lengths only.
func (db *DB) CloudSizes(id AccountID) (map[string]int64, error) {
	sizes := map[string]int64{}
	p := cloudPrefix(id)
	err := db.scan(p, func(k, v []byte) error {
		sizes[string(k[len(p):])] = int64(len(v))
		return nil
	})
	return sizes, err
}
