-- bench/script.sh: a response() that reads every response (its status and a header), as a
-- script that checks what the server answered does; counts printed by done().
local seen = {}

response = function(status, headers, body)
   seen[status] = (seen[status] or 0) + 1
   local _ = headers["Content-Length"]
end

done = function(summary, latency, requests)
   io.write(string.format("responses read by response(): %d\n", summary.requests))
end
