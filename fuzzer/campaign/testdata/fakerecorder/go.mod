module fakerecorder

go 1.26
