module selectcause

go 1.25
