-- wrk script: send 16 pipelined requests per write (the usual pipelining script, depth 16).
init = function(args)
   local r = {}
   for i = 1, 16 do
      r[i] = wrk.format(nil)
   end
   req = table.concat(r)
end

request = function()
   return req
end
