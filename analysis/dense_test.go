package analysis

import "testing"

// chunked keeps every element at its index across chunk boundaries, and an element does
// not move when later ones are added (no chunk is copied once it is full).
func TestChunkedKeepsElements(t *testing.T) {
	var c chunked[[3]int]
	var first *[3]int
	for n := range 3*chunkN + 5 {
		if x := c.add([3]int{n, -n, 7}); int(x) != n {
			t.Fatalf("add %d returned index %d", n, x)
		}
		if n == chunkN {
			first = c.at(int32(n))
		}
	}
	if int(c.len()) != 3*chunkN+5 {
		t.Fatalf("len %d, want %d", c.len(), 3*chunkN+5)
	}
	for x := range c.len() {
		if v := *c.at(x); v != [3]int{int(x), -int(x), 7} {
			t.Fatalf("element %d = %v", x, v)
		}
	}
	if first != c.at(chunkN) {
		t.Errorf("element %d moved when later ones were added", chunkN)
	}
}
