module goweave.test/panicanchor

go 1.25
