module example.com/download

go 1.19
