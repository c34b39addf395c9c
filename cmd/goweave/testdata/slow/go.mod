module slow

go 1.25
