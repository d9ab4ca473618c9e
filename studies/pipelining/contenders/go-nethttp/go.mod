module barrage/studies/pipelining/go-nethttp

go 1.22
