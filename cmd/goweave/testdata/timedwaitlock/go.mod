module timedwaitlock

go 1.25
