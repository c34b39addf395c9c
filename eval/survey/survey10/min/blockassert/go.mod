module blockassert

go 1.25
