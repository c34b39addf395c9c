module example.com/lostupdate

go 1.25
