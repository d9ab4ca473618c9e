# GET a URL with Net::HTTP and stream the body with read_body (chunk by chunk) into the output
# file (or /dev/null), updating Zlib.crc32 as it goes.
require "net/http"
require "zlib"

url, out, sink = ARGV
uri = URI(url)
n = 0
crc = 0
Net::HTTP.start(uri.host, uri.port) do |http|
  http.request(Net::HTTP::Get.new(uri)) do |res|
    raise "status #{res.code}" unless res.is_a?(Net::HTTPOK)
    File.open(sink == "file" ? out : File::NULL, "wb") do |f|
      res.read_body do |chunk|
        f.write(chunk)
        crc = Zlib.crc32(chunk, crc)
        n += chunk.bytesize
      end
    end
  end
end
puts format("bytes=%d crc32=%08x", n, crc)
