module hang

go 1.26
