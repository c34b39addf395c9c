module leakgc

go 1.26
