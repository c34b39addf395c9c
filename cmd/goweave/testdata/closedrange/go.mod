module closedrange

go 1.25
