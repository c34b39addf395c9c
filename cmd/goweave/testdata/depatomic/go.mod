module goweave.test/depatomic

go 1.25

require goweave.test/depatomicwrap v0.0.0

replace goweave.test/depatomicwrap => ../depatomicwrap
