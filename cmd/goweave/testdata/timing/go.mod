module timing

go 1.25
