module ordercause

go 1.25
