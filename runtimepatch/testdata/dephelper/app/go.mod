module goweave.test/dephelperapp

go 1.25

require goweave.test/check v0.0.0

replace goweave.test/check => ../check
