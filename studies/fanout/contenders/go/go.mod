module barrage.studies/fanout

go 1.21
