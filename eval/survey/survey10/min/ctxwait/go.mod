module ctxwait

go 1.25
