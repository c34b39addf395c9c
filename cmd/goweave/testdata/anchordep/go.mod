module goweave.test/anchordep

go 1.25
