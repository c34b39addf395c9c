module racyconvert

go 1.25
