module goweave.test/helpercause

go 1.25

require goweave.test/helpercausecheck v0.0.0

replace goweave.test/helpercausecheck => ../helpercausecheck
