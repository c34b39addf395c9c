package mapthrow

import "testing"

func TestFill(t *testing.T) {
	Fill(map[int]int{}, 100000)
}
