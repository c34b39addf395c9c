package astname

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

func TestFunc(t *testing.T) {
	const src = `package p
func F() {}
func (T) Value() {}
func (t *T) Pointer() {}
func (l *List[E]) Generic() {}
func (m Map[K, V]) Generic2() {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		fn, recv string
		pointer  bool
	}{
		{"F", "", false},
		{"T.Value", "T", false},
		{"(*T).Pointer", "T", true},
		{"(*List).Generic", "List", true},
		{"Map.Generic2", "Map", false},
	}
	for i, d := range f.Decls {
		fd := d.(*ast.FuncDecl)
		if got := Func(fd); got != want[i].fn {
			t.Errorf("Func(%s) = %q, want %q", fd.Name.Name, got, want[i].fn)
		}
		if recv, pointer := Receiver(fd); recv != want[i].recv || pointer != want[i].pointer {
			t.Errorf("Receiver(%s) = %q, %v, want %q, %v", fd.Name.Name, recv, pointer, want[i].recv, want[i].pointer)
		}
	}
}
