module mutexsize

go 1.25
