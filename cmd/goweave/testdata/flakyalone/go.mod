module flakyalone

go 1.25
