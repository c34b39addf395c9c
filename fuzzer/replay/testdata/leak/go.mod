module leak

go 1.26
