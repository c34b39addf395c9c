module panicnotstuck

go 1.25
