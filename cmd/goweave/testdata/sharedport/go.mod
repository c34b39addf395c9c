module sharedport

go 1.25
