module outcomes

go 1.25
