module pinatomic

go 1.26
