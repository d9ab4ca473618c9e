#!/bin/sh
# Starts Debian's nginx for the pipelining study on 127.0.0.1:PORT: one process (master_process
# off, so the process barrage starts is the one that serves: its rusage and samples are the
# server's), `return 200 "Hello, World!"`, no access log, and keepalive_requests far above any
# trial's request count, because nginx's default (1000) closes the connection after 1000
# requests and would cut every pipeline. Usage: run.sh PORT
set -eu
port=$1
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
    client_body_temp_path $run/body;
    proxy_temp_path $run/proxy;
    fastcgi_temp_path $run/fastcgi;
    uwsgi_temp_path $run/uwsgi;
    scgi_temp_path $run/scgi;
    server {
        listen 127.0.0.1:$port;
        location = / { default_type text/plain; return 200 "Hello, World!"; }
    }
}
CONF
exec /usr/sbin/nginx -p "$run" -c "$run/nginx.conf"
