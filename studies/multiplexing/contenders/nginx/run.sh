#!/bin/sh
# Starts Debian's nginx (1.22) for the multiplexing study on 127.0.0.1:PORT, speaking PROTOCOL:
# `http1` (HTTP/1.1, keep-alive and pipelining) or `h2` (h2c with prior knowledge). nginx before
# 1.25 cannot tell the two apart on a cleartext port (`listen ... http2` makes the port h2c only),
# so the study starts it with the point's {protocol}. One process (master_process off, so the
# process barrage starts is the one that serves: its rusage and samples are the server's),
# `return 200 "Hello, World!"` (text/plain), no access log, keepalive_requests far above any
# trial's request count (nginx's default, 1000, closes the connection after 1000 requests; since
# 1.19.7 it also bounds the requests of an HTTP/2 connection, which http2_max_requests did
# before), and http2_max_concurrent_streams 128 (nginx's default, above the study's 100 streams).
# Usage: run.sh PORT [http1|h2]
set -eu
port=$1
protocol=${2:-http1}
case $protocol in
  http1) listen="127.0.0.1:$port" ;;
  h2) listen="127.0.0.1:$port http2" ;;
  *) echo "run.sh: unknown protocol $protocol (http1 or h2)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
# Per-trial runtime files (config, pid, temp dirs) in run/, recreated each time.
run=$here/run
rm -rf "$run"
mkdir -p "$run/body" "$run/proxy" "$run/fastcgi" "$run/uwsgi" "$run/scgi"
cat >"$run/nginx.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
error_log stderr warn;
pid $run/nginx.pid;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000000;
    keepalive_timeout 75s;
    http2_max_concurrent_streams 128;
    client_body_temp_path $run/body;
    proxy_temp_path $run/proxy;
    fastcgi_temp_path $run/fastcgi;
    uwsgi_temp_path $run/uwsgi;
    scgi_temp_path $run/scgi;
    server {
        listen $listen backlog=1024;
        location = / { default_type text/plain; return 200 "Hello, World!"; }
    }
}
CONF
exec /usr/sbin/nginx -p "$run" -c "$run/nginx.conf"
