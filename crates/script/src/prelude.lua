-- barrage's side of wrk's Lua API, run in every environment before the user's script: the
-- `wrk` table's header lists that ignore the case of names, wrk.format (an HTTP/1.1 request's
-- text from the table's defaults), and the start of a thread (`__barrage_init`: the Host
-- header, the script's init(args), the default request). The Rust side fills in the target
-- (scheme, host, port, method, path) and wrk.lookup, wrk.connect and wrk.thread.
local any_case = {
  __newindex = function(t, k, v) rawset(t, string.lower(k), v) end,
  __index = function(t, k) return rawget(t, string.lower(k)) end,
}

wrk.headers = setmetatable({}, any_case)

-- Names are written in lower case, Host from wrk.headers when the list has none, and
-- content-length from the body (none without one). No table is made per call: request()
-- calls it for every request.
function wrk.format(method, path, headers, body)
  method = method or wrk.method
  path = path or wrk.path
  headers = headers or wrk.headers
  body = body or wrk.body
  local lines = { method .. " " .. path .. " HTTP/1.1" }
  local host = false
  for k, v in pairs(headers) do
    local name = string.lower(k)
    if name == "host" then host = true end
    if name ~= "content-length" then lines[#lines + 1] = name .. ": " .. tostring(v) end
  end
  if not host and wrk.headers["host"] then
    lines[#lines + 1] = "host: " .. wrk.headers["host"]
  end
  if body then lines[#lines + 1] = "content-length: " .. string.len(body) end
  lines[#lines + 1] = ""
  lines[#lines + 1] = body or ""
  return table.concat(lines, "\r\n")
end

function __barrage_host()
  if not wrk.headers["host"] then
    local host = wrk.host
    if string.find(host, ":", 1, true) then host = "[" .. host .. "]" end
    if wrk.port then host = host .. ":" .. wrk.port end
    wrk.headers["host"] = host
  end
end

function __barrage_init(args)
  __barrage_host()
  if type(init) == "function" then init(args) end
  local req = wrk.format()
  wrk.request = function() return req end
end

-- The metatable of response()'s header table: a name looked up in another case than the
-- server wrote it finds it (HTTP/2 writes names in lower case, scripts written for wrk ask for
-- headers["X-Token"]); a name as written is found without it.
__barrage_response_headers = {
  __index = function(t, k)
    if type(k) ~= "string" then return nil end
    local want = string.lower(k)
    for name, v in pairs(t) do
      if string.lower(name) == want then return v end
    end
  end,
}
