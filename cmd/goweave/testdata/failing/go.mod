module failing

go 1.25
