module timelimit

go 1.25
