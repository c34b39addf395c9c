module goweave.test/atomicwrap

go 1.25
