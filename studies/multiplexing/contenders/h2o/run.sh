#!/bin/sh
# Starts Debian's h2o 2.2 for the multiplexing study on 127.0.0.1:PORT: one event-loop thread
# (num-threads: 1), serving the 13-byte file "Hello, World!" as / (h2o 2.2 has no inline-response
# directive without mruby; the file is index.txt so it goes out as text/plain), no access log.
# One cleartext listener serves HTTP/1.1 (keep-alive, pipelining) and h2c with prior knowledge
# (h2o recognises the HTTP/2 connection preface), so the point's protocol is not needed. h2o 2.2
# announces SETTINGS_MAX_CONCURRENT_STREAMS 100 (fixed in the source) and processes up to
# http2-max-concurrent-requests-per-connection (default 100) at once: exactly the study's largest
# stream count. Usage: run.sh PORT
set -eu
port=$1
here=$(cd "$(dirname "$0")" && pwd)
run=$here/run
rm -rf "$run"
mkdir -p "$run/www"
printf 'Hello, World!' >"$run/www/index.txt"
# Started as root, h2o drops to "nobody": it must be able to read the file.
chmod -R a+rX "$run"
cat >"$run/h2o.conf" <<CONF
num-threads: 1
listen:
  host: 127.0.0.1
  port: $port
hosts:
  default:
    paths:
      /:
        file.dir: $run/www
        file.index: [ 'index.txt' ]
CONF
exec /usr/bin/h2o -c "$run/h2o.conf"
