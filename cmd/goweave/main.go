package main

import (
	_ "go.lsp.dev/jsonrpc2"
	_ "go.lsp.dev/protocol"
	_ "go.lsp.dev/uri"
	_ "golang.org/x/tools/go/packages"
)

func main() {}
