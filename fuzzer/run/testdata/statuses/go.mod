module statuses

go 1.26
