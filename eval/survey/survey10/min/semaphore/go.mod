module semaphore

go 1.25
