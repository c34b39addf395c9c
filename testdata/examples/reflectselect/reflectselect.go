// Package reflectselect merges and fans out channels with package reflect, as
// channel-utility modules do: every channel operation goes through
// reflect.Select, Value.Send, TrySend or Value.Close.
package reflectselect

import "reflect"

// Merge forwards every value of ins to the channel it returns, which it
// closes once every input is closed. The forwarding send is a reflect.Select
// send case.
func Merge(ins ...<-chan int) <-chan int {
	out := make(chan int)
	outV := reflect.ValueOf(out)
	go func() {
		defer outV.Close()
		cases := make([]reflect.SelectCase, len(ins))
		for i, in := range ins {
			cases[i] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(in)}
		}
		for open := len(cases); open > 0; {
			i, v, ok := reflect.Select(cases)
			if !ok {
				cases[i].Chan = reflect.Value{} // a zero Chan is never chosen
				open--
				continue
			}
			reflect.Select([]reflect.SelectCase{{Dir: reflect.SelectSend, Chan: outV, Send: v}}) // want "leak-select"
		}
	}()
	return out
}

// Offer sends v on every channel of outs that has room, skipping the full
// ones (a reflect.Select with a send case per channel and a default), and
// returns how many took it.
func Offer(outs []chan int, v int) int {
	n := 0
	for _, out := range outs {
		chosen, _, _ := reflect.Select([]reflect.SelectCase{ // want "send-on-closed"
			{Dir: reflect.SelectSend, Chan: reflect.ValueOf(out), Send: reflect.ValueOf(v)},
			{Dir: reflect.SelectDefault},
		})
		if chosen == 0 {
			n++
		}
	}
	return n
}
