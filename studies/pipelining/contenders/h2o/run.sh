#!/bin/sh
# Starts Debian's h2o 2.2 for the pipelining study on 127.0.0.1:PORT: one event-loop thread
# (num-threads: 1), serving the 13-byte file "Hello, World!" as / (h2o has no inline-response
# directive in 2.2 without mruby), no access log. Usage: run.sh PORT
set -eu
port=$1
here=$(cd "$(dirname "$0")" && pwd)
run=$here/run
rm -rf "$run"
mkdir -p "$run/www"
printf 'Hello, World!' >"$run/www/index.html"
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
CONF
exec /usr/bin/h2o -c "$run/h2o.conf"
