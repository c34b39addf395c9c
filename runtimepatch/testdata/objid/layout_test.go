// Package objid holds the programs of runtimepatch's objid_test.go: the
// layout of the sync types, which goweave's runtime must leave as the stock
// toolchain has it, and the object ids it keeps outside them.
package objid

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

const cacheLineSize = 64

// bucket pads itself to a cache line by the size of a struct holding a
// mutex, as puzpuzpuz/xsync's map buckets do: one byte more in sync.Mutex
// and the array length is negative, so the package does not compile.
type bucket struct {
	mu   sync.Mutex
	meta uint64
	keys [3]unsafe.Pointer
	vals [3]unsafe.Pointer
}

type paddedBucket struct {
	bucket
	pad [cacheLineSize - unsafe.Sizeof(bucket{})]byte
}

// counter pads a struct holding each of the other sync types the same way.
type counters struct {
	rw   sync.RWMutex
	once sync.Once
	wg   sync.WaitGroup
	cond sync.Cond
	n    atomic.Int64
}

type paddedCounters struct {
	counters
	pad [4*cacheLineSize - unsafe.Sizeof(counters{})]byte
}

// TestLayout prints the size, alignment and field offsets of every exported
// sync and sync/atomic type and of structs that embed them: the test
// compares the output of a goweave build with a plain one.
func TestLayout(t *testing.T) {
	for _, v := range []any{
		sync.Mutex{}, sync.RWMutex{}, sync.Once{}, sync.WaitGroup{}, sync.Cond{}, sync.Map{}, sync.Pool{},
		atomic.Bool{}, atomic.Int32{}, atomic.Int64{}, atomic.Uint32{}, atomic.Uint64{}, atomic.Uintptr{},
		atomic.Pointer[int]{}, atomic.Value{},
		bucket{}, paddedBucket{}, counters{}, paddedCounters{},
	} {
		layout(reflect.TypeOf(v), "")
	}
	fmt.Println("offsetof", unsafe.Offsetof(bucket{}.meta), unsafe.Offsetof(counters{}.once),
		unsafe.Offsetof(counters{}.wg), unsafe.Offsetof(counters{}.cond), unsafe.Offsetof(counters{}.n))
	fmt.Println("sizeof", unsafe.Sizeof(sync.Mutex{}), unsafe.Sizeof(sync.RWMutex{}), unsafe.Sizeof(sync.Once{}),
		unsafe.Sizeof(sync.WaitGroup{}), unsafe.Sizeof(sync.Cond{}), unsafe.Sizeof(paddedBucket{}))
}

// layout prints t's size, alignment and fields, and its struct fields' in turn.
func layout(t reflect.Type, indent string) {
	fmt.Printf("%s%s size=%d align=%d\n", indent, t, t.Size(), t.Align())
	if t.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		fmt.Printf("%s  .%s offset=%d\n", indent, f.Name, f.Offset)
		if f.Type.Kind() == reflect.Struct {
			layout(f.Type, indent+"    ")
		}
	}
}
