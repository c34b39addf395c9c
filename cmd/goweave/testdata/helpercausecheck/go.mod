module goweave.test/helpercausecheck

go 1.25
