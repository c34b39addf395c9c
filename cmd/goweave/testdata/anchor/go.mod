module goweave.test/anchor

go 1.25

require goweave.test/anchordep v0.0.0

replace goweave.test/anchordep => ../anchordep
