module sleepcheck

go 1.25
