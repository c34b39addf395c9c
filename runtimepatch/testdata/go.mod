module goweavetest

go 1.25
