module races

go 1.26
