package vetfails

import (
	"fmt"
	"testing"
)

func TestHello(t *testing.T) {
	if Hello() != "hi" {
		t.Fatal(Hello())
	}
}

func ExampleGoodbye() {
	fmt.Println(Hello())
	// Output: hi
}
