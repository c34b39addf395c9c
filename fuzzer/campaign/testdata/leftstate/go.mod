module leftstate

go 1.26
