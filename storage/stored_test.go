package storage

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// notInRecords are the Account fields the profile and lists records do not
// hold (owned upgrades are records of their own; index is the actor's).
var notInRecords = map[string]bool{"Upgrades": true, "index": true}

// fillValue gives every settable leaf under v a non-zero value and every
// slice one element, so that each leaf can then be changed on its own.
func fillValue(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Unix(1700000000+int64(*n), 0).UTC()))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() && !notInRecords[f.Name] {
				fillValue(v.Field(i), n)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillValue(s.Index(0), n)
		v.Set(s)
	case reflect.String:
		v.SetString("v" + strings.Repeat("x", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float64, reflect.Float32:
		v.SetFloat(float64(*n) + 0.5)
	default:
		panic("fillValue: add a case for " + v.Type().String())
	}
}

// leaves lists the paths (field and element indexes) of every leaf under
// t, as fillValue fills them.
func leaves(t reflect.Type, path []int, names string, out *[]leaf) {
	switch {
	case t == reflect.TypeOf(time.Time{}):
		*out = append(*out, leaf{append([]int(nil), path...), names})
	case t.Kind() == reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && !notInRecords[f.Name] {
				leaves(f.Type, append(path, i), names+"."+f.Name, out)
			}
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		leaves(t.Elem(), append(path, -1), names+"[0]", out)
	default:
		*out = append(*out, leaf{append([]int(nil), path...), names})
	}
}

type leaf struct {
	path []int
	name string
}

// change alters the leaf at path under v (slices are copied first, so that
// the original account is untouched).
func change(v reflect.Value, path []int) {
	for _, i := range path {
		if i == -1 {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(c, v)
			v.Set(c)
			v = v.Index(0)
		} else {
			v = v.Field(i)
		}
	}
	switch v.Kind() {
	case reflect.Struct: // time.Time
		v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(time.Second)))
	case reflect.Slice: // []byte
		v.Set(reflect.ValueOf(append(append([]byte(nil), v.Bytes()...), 0xEE)))
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1000)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1000)
	case reflect.Float64, reflect.Float32:
		v.SetFloat(v.Float() + 1000)
	}
}

// TestSameRecordsCoverEveryField: PutAccount skips a record whose content
// equals what the account's actor last stored, by comparing decoded fields.
// A change to any one field of an account must still reach storage: this
// test fails for a field added to Account (and to profileOf or toLists)
// but not to sameProfile or sameLists.
func TestSameRecordsCoverEveryField(t *testing.T) {
	base := &Account{}
	n := 0
	fillValue(reflect.ValueOf(base).Elem(), &n)
	base.ID, base.SuperID = 7, 7
	var all []leaf
	leaves(reflect.TypeOf(Account{}), nil, "Account", &all)
	if len(all) < 60 {
		t.Fatalf("only %d fields found: the walk is broken", len(all))
	}
	for _, l := range all {
		if l.name == "Account.ID" {
			continue // another account's records
		}
		t.Run(l.name, func(t *testing.T) {
			db := openMem(t)
			b := db.NewBatch()
			b.PutAccount(base, nil)
			if err := db.Commit(b); err != nil {
				t.Fatal(err)
			}
			same := base.Clone()
			b = db.NewBatch()
			if b.PutAccount(same, base); !b.Empty() {
				t.Fatal("an unchanged account wrote a record")
			}
			b.Discard()
			changed := base.Clone()
			change(reflect.ValueOf(changed).Elem(), l.path)
			if reflect.DeepEqual(changed, base) {
				t.Fatal("the test did not change the field")
			}
			b = db.NewBatch()
			b.PutAccount(changed, base)
			if err := db.Commit(b); err != nil {
				t.Fatal(err)
			}
			got, err := db.Account(base.ID)
			if err != nil {
				t.Fatal(err)
			}
			got.Upgrades, changed.Upgrades = nil, nil
			if !reflect.DeepEqual(got, changed) {
				t.Errorf("the change of %s was not stored:\n got %+v\nwant %+v", l.name, got, changed)
			}
		})
	}
}

// TestAccountSize: every live account keeps its Account in memory (100k
// players online hold 100k of them), so its size is a budget. The Go
// allocator rounds a 576-byte object to the 576-byte size class and
// anything up to 640 to the next; before the small fields were int32 and
// packed together it was 712 bytes, allocated as 768.
func TestAccountSize(t *testing.T) {
	if got := unsafe.Sizeof(Account{}); got > 576 {
		t.Errorf("Account is %d bytes, over its 576-byte budget (each live account holds one); "+
			"keep the small fields small and the bools together", got)
	}
}
