module sendafter

go 1.25
