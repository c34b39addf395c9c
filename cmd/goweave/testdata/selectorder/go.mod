module selectorder

go 1.25
