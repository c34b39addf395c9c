module replay

go 1.26
