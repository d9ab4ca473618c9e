module pingpong/go-nethttp

go 1.21
