module barrage/studies/multiplexing/go-nethttp

go 1.24
