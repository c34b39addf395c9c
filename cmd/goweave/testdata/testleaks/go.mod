module testleaks

go 1.25
