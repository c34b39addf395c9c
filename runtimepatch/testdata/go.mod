module goweavetest

go 1.26
