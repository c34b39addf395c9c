module refuted

go 1.25
