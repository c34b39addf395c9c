module goweave.test/mapthrow

go 1.25
