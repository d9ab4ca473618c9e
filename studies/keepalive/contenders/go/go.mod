module barrage.studies/keepalive

go 1.21
