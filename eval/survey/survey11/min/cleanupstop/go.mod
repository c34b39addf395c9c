module cleanupstop

go 1.25
