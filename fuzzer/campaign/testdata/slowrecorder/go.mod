module slowrecorder

go 1.25
