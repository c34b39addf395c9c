package bench

import (
	"reflect"
	"testing"
)

// BenchmarkReflectSelect2 is BenchmarkSelect2 with the select made by reflect.Select
// (recorded since issue 21): 2 recorded events per op, the send and the select.
func BenchmarkReflectSelect2(b *testing.B) {
	a, c := make(chan int, 1), make(chan int)
	cases := []reflect.SelectCase{
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(a)},
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)},
	}
	for i := 0; i < b.N; i++ {
		a <- i
		reflect.Select(cases)
	}
}
