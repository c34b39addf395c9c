module silentfail

go 1.25
