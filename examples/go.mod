module goweave.example

go 1.26
