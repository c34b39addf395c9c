module example.com/sendafterclose

go 1.26
