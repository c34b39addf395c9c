module goweave.test/racedep

go 1.25
