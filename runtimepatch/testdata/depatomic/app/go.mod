module goweave.test/depatomicapp

go 1.25

require goweave.test/atomicwrap v0.0.0

replace goweave.test/atomicwrap => ../wrap
