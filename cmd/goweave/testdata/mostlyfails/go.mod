module mostlyfails

go 1.25
