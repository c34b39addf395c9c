module example.com/buggy

go 1.26
