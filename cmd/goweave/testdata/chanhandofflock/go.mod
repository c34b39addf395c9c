module chanhandofflock

go 1.25
