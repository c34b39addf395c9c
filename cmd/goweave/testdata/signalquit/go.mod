module goweave.test/signalquit

go 1.25
