// Package astname names function declarations the way Go programmers write them.
package astname

import "go/ast"

// Receiver returns the name of fd's receiver type without its type parameters, and whether
// the receiver is a pointer; "" for a plain function or a receiver type it cannot name.
func Receiver(fd *ast.FuncDecl) (name string, pointer bool) {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return "", false
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		pointer, t = true, s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name, pointer
	}
	return "", pointer
}

// Func returns fd's name as a reader knows it: "F", "T.M" or "(*T).M" (type parameters
// dropped).
func Func(fd *ast.FuncDecl) string {
	recv, pointer := Receiver(fd)
	switch {
	case recv == "":
		return fd.Name.Name
	case pointer:
		return "(*" + recv + ")." + fd.Name.Name
	}
	return recv + "." + fd.Name.Name
}
