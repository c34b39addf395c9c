module lostsignal

go 1.25
