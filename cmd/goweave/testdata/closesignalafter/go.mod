module closesignalafter

go 1.25
