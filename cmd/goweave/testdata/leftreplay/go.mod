module leftreplay

go 1.25
