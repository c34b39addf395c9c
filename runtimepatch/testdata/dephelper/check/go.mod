module goweave.test/check

go 1.25
