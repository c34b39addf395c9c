module goweave.test/depatomicwrap

go 1.25
