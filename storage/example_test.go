package storage_test

import (
	"fmt"

	"github.com/honmaster/masterserver/storage"
)

// Writes go into a Batch that commits atomically and synced; reads come
// straight from the database. (In the server only the actors commit.)
func Example() {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		panic(err)
	}
	defer db.Close()

	b := db.NewBatch()
	b.PutAccount(&storage.Account{ID: 1, SuperID: 1, Login: "SouL", Nickname: "TheSoul", Tickets: 66}, nil)
	b.PutLogin("SouL", 1)
	if err := db.Commit(b); err != nil {
		panic(err)
	}

	id, _ := db.LoginID("SouL")
	acct, _ := db.Account(id)
	fmt.Println(acct.Nickname, acct.Tickets)
	_, err = db.LoginID("soul") // logins are exact
	fmt.Println(err)
	// Output:
	// TheSoul 66
	// storage: login "soul": storage: not found
}
