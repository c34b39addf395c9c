module slowshare

go 1.26
