module sharedfile

go 1.25
