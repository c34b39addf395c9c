package events

import (
	"reflect"
	"testing"
)

// TestReflectChan makes every channel operation through package reflect;
// each must be recorded at its line here, like the compiled operation.
func TestReflectChan(t *testing.T) {
	typ := reflect.TypeFor[chan int]()
	c := reflect.MakeChan(typ, 0) // @reflect.make
	done := make(chan struct{})
	go func() {
		c.Send(reflect.ValueOf(1)) // @reflect.send
		// A select with a send case, a receive case on a nil channel and a default:
		// it waits for nothing, so it retries until the receiver below is parked.
		cases := []reflect.SelectCase{
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf((chan int)(nil))},
			{Dir: reflect.SelectDefault},
			{Dir: reflect.SelectSend, Chan: c, Send: reflect.ValueOf(2)},
		}
		for {
			if chosen, _, _ := reflect.Select(cases); chosen == 2 { // @reflect.select
				break
			}
		}
		close(done)
	}()
	if v, ok := c.Recv(); !ok || v.Int() != 1 { // @reflect.recv
		t.Fatal(v, ok)
	}
	if v := <-c.Interface().(chan int); v != 2 { // @reflect.plainrecv
		t.Fatal(v)
	}
	<-done
	b := reflect.MakeChan(typ, 1)
	if !b.TrySend(reflect.ValueOf(3)) { // @reflect.trysend
		t.Fatal("TrySend on an empty buffer failed")
	}
	if v, ok := b.TryRecv(); !ok || v.Int() != 3 { // @reflect.tryrecv
		t.Fatal(v, ok)
	}
	c.Close()                                                                                     // @reflect.close
	chosen, _, recvOK := reflect.Select([]reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: c}}) // @reflect.selectclosed
	if chosen != 0 || recvOK {
		t.Fatal(chosen, recvOK)
	}
}
