// Package selectorder has selects whose first case is a receive and second a send: the
// runtime sees the send first, goweave must name the cases as written.
package selectorder

// pump copies values from in to out until in is closed. quit is meant to stop it early,
// but nothing ever closes it.
type pump struct {
	in   <-chan int
	out  chan int
	quit chan struct{}
}

func newPump(in <-chan int) *pump {
	p := &pump{in: in, out: make(chan int)}
	p.quit = make(chan struct{})
	go p.run()
	return p
}

func (p *pump) run() {
	for v := range p.in {
		select {
		case <-p.quit:
			return
		case p.out <- v:
		}
	}
	close(p.out)
}

// poll takes a waiting value, or else offers v, or else gives up.
func poll(in <-chan int, out chan<- int, v int) string {
	select {
	case <-in:
		return "got"
	case out <- v:
		return "sent"
	default:
		return "idle"
	}
}
