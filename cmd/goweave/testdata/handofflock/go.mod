module handofflock

go 1.25
