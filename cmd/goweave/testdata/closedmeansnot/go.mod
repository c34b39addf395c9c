module closedmeansnot

go 1.25
