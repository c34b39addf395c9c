package selectcase

import (
	"os"
	"path/filepath"
	"testing"
)

const failsSrc = `package p

import "testing"

func TestX(t *testing.T, a, b, c, d, e chan error) {
	select {
	case <-a:
		t.Errorf("a fired, not good")
	case err := <-b:
		t.Log(err.Error())
	case <-c:
		if true {
			t.FailNow()
		}
	case <-d:
		go func() { t.Error("later") }()
	case err := <-e:
		_ = err.Error()
	}
}
`

// A clause fails the test when it calls t.Error/Errorf/Fatal/Fatalf with arguments or
// t.Fail/FailNow, as statements, anywhere in its body but in a function it only defines;
// err.Error() is no failure. Outside a _test.go file nothing does.
func TestFailsTest(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		want []bool
	}{
		{"x_test.go", []bool{true, false, true, false, false}},
		{"x.go", []bool{false, false, false, false, false}},
	} {
		file := filepath.Join(dir, tc.name)
		if err := os.WriteFile(file, []byte(failsSrc), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := At(file, 6)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range s.Cases {
			if c.FailsTest != tc.want[i] {
				t.Errorf("%s: case %d (%s): FailsTest = %v, want %v", tc.name, i+1, c.Text, c.FailsTest, tc.want[i])
			}
		}
	}
}
