module goweave.test/unplacedrace

go 1.25

require goweave.test/racedep v0.0.0

replace goweave.test/racedep => ../racedep
