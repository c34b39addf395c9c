module leakgc

go 1.25
