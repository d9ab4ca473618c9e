# The naive variant: Net::HTTP.get_response reads the whole body into one String, then write it.
require "net/http"
require "zlib"

url, out, sink = ARGV
res = Net::HTTP.get_response(URI(url))
raise "status #{res.code}" unless res.is_a?(Net::HTTPOK)
body = res.body
File.binwrite(sink == "file" ? out : File::NULL, body)
puts format("bytes=%d crc32=%08x", body.bytesize, Zlib.crc32(body))
