module stuck

go 1.25
