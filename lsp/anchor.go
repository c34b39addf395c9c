package lsp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"go.lsp.dev/protocol"
)

// An operation is the source range of one concurrency operation, in bytes of a file.
type operation struct {
	class      opClass
	start, end token.Pos
}

// opClass says which kind of operation a range covers, to pick the right one when a
// line holds several.
type opClass int

const (
	opNone opClass = iota
	opSend
	opRecv
	opClose
	opSelect
	opRange
	opLock
	opUnlock
	opWaitGroup
	opOnce
	opCond
	opGo
)

// syncMethods maps the method names of sync values to their operation class.
var syncMethods = map[string]opClass{
	"Lock": opLock, "RLock": opLock, "TryLock": opLock, "TryRLock": opLock,
	"Unlock": opUnlock, "RUnlock": opUnlock,
	"Add": opWaitGroup, "Done": opWaitGroup, "Wait": opWaitGroup, "Go": opWaitGroup,
	"Do":     opOnce,
	"Signal": opCond, "Broadcast": opCond,
}

// preferredOps orders the operation classes that fit a position's role (or, without
// a telling role, its finding's kind).
func preferredOps(role, kind string) []opClass {
	for _, word := range []string{strings.ToLower(role), strings.ToLower(kind)} {
		switch {
		case strings.Contains(word, "send"):
			return []opClass{opSend, opSelect}
		case strings.Contains(word, "recv"), strings.Contains(word, "receive"):
			return []opClass{opRecv, opRange, opSelect}
		case strings.Contains(word, "close"):
			return []opClass{opClose, opOnce}
		case strings.Contains(word, "select"):
			return []opClass{opSelect}
		case strings.Contains(word, "unlock"):
			return []opClass{opUnlock}
		case strings.Contains(word, "lock"), strings.Contains(word, "mutex"), strings.Contains(word, "deadlock"):
			return []opClass{opLock, opSend, opRecv, opSelect}
		case strings.Contains(word, "waitgroup"), strings.Contains(word, "done"), strings.Contains(word, "add"), strings.Contains(word, "wait"):
			return []opClass{opWaitGroup, opCond}
		case strings.Contains(word, "once"):
			return []opClass{opOnce}
		case strings.Contains(word, "cond"), strings.Contains(word, "signal"):
			return []opClass{opCond}
		case strings.Contains(word, "spawn"), word == "go":
			return []opClass{opGo}
		case strings.Contains(word, "chan"), strings.Contains(word, "concurrent-recv"):
			return []opClass{opSend, opRecv, opSelect, opRange}
		}
	}
	return nil
}

// fileOps holds the operations of one parsed file, by 1-based line.
type fileOps struct {
	fset  *token.FileSet
	file  *token.File
	src   string
	lines map[int][]operation
}

// parseOps finds the concurrency operations of a Go file. A file that does not parse
// yields what the parser recovered (possibly nothing).
func parseOps(filename, src string) *fileOps {
	fo := &fileOps{fset: token.NewFileSet(), src: src, lines: map[int][]operation{}}
	f, _ := parser.ParseFile(fo.fset, filename, src, parser.SkipObjectResolution)
	if f == nil {
		return fo
	}
	fo.file = fo.fset.File(f.Pos())
	add := func(class opClass, start, end token.Pos) {
		line := fo.fset.Position(start).Line
		fo.lines[line] = append(fo.lines[line], operation{class, start, end})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SendStmt:
			add(opSend, n.Arrow, n.Arrow+2)
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				add(opRecv, n.OpPos, n.OpPos+2)
			}
		case *ast.SelectStmt:
			add(opSelect, n.Select, n.Select+token.Pos(len("select")))
		case *ast.RangeStmt:
			add(opRange, n.For, n.For+token.Pos(len("for")))
		case *ast.GoStmt:
			add(opGo, n.Go, n.Go+token.Pos(len("go")))
		case *ast.CallExpr:
			switch fun := n.Fun.(type) {
			case *ast.Ident:
				if fun.Name == "close" {
					add(opClose, fun.Pos(), n.Lparen+1) // close(
				}
			case *ast.SelectorExpr:
				if class, ok := syncMethods[fun.Sel.Name]; ok {
					// .Lock() for calls without arguments, .Do( for calls with some.
					end := n.Rparen + 1
					if len(n.Args) > 0 {
						end = n.Lparen + 1
					}
					add(class, fun.Sel.Pos()-1, end)
				}
			}
		}
		return true
	})
	return fo
}

// rangeAt is the range of the operation at line (1-based) and column (1-based bytes,
// 0 unknown) that best fits role and kind; without a matching operation it is the line
// from its first non-blank character to its end. ok is false when the file has no such
// line.
func (fo *fileOps) rangeAt(line, column int, role, kind string) (protocol.Range, bool) {
	lineStart, lineText, ok := lineAt(fo.src, line)
	if !ok {
		return protocol.Range{}, false
	}
	ops := fo.lines[line]
	var best *operation
	if column > 0 {
		for i, op := range ops {
			if fo.offset(op.start)-lineStart <= column-1 && column-1 < fo.offset(op.end)-lineStart {
				best = &ops[i]
				break
			}
		}
	}
	if best == nil {
		for _, class := range preferredOps(role, kind) {
			for i := range ops {
				if ops[i].class == class {
					best = &ops[i]
					break
				}
			}
			if best != nil {
				break
			}
		}
	}
	if best == nil && len(ops) > 0 {
		best = &ops[0]
	}
	l := uint32(line - 1)
	if best != nil {
		return protocol.Range{
			Start: protocol.Position{Line: l, Character: utf16Column(lineText, fo.offset(best.start)-lineStart)},
			End:   protocol.Position{Line: l, Character: utf16Column(lineText, fo.offset(best.end)-lineStart)},
		}, true
	}
	trimmed := strings.TrimRight(lineText, " \t\r")
	first := len(trimmed) - len(strings.TrimLeft(trimmed, " \t"))
	return protocol.Range{
		Start: protocol.Position{Line: l, Character: utf16Column(lineText, first)},
		End:   protocol.Position{Line: l, Character: utf16Column(lineText, len(trimmed))},
	}, true
}

func (fo *fileOps) offset(p token.Pos) int { return fo.file.Offset(p) }

// lineAt returns the byte offset and text (without newline) of the 1-based line.
func lineAt(src string, line int) (start int, text string, ok bool) {
	if line < 1 {
		return 0, "", false
	}
	for l := 1; l < line; l++ {
		i := strings.IndexByte(src[start:], '\n')
		if i < 0 {
			return 0, "", false
		}
		start += i + 1
	}
	text = src[start:]
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return start, text, true
}
